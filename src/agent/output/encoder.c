#include "agent/output/encoder.h"

static const struct hp_encoder *selected = &hp_ascii_encoder;

void hp_encoder_select(enum hp_format format)
{
    selected = format == HP_FORMAT_BINARY ? &hp_binary_encoder : &hp_ascii_encoder;
}

const struct hp_encoder *hp_encoder(void)
{
    return selected;
}

bool hp_output_binary(void)
{
    return selected == &hp_binary_encoder;
}
