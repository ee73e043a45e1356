#include "bci/typeanno.h"

#include "bci/buf.h"

#define MAX_NESTING 64

static int skip_annotation(rd_t *r, int depth);

static int skip_element_value(rd_t *r, int depth)
{
    if (depth > MAX_NESTING) return 0;
    switch (rd_u1(r)) {
    case 'B':
    case 'C':
    case 'D':
    case 'F':
    case 'I':
    case 'J':
    case 'S':
    case 'Z':
    case 's':
    case 'c':
        rd_u2(r);
        break;
    case 'e':
        rd_u4(r);
        break;
    case '@':
        return skip_annotation(r, depth + 1);
    case '[': {
        uint32_t n = rd_u2(r);
        for (uint32_t i = 0; i < n && !r->err; i++)
            if (!skip_element_value(r, depth + 1)) return 0;
        break;
    }
    default:
        return 0;
    }
    return !r->err;
}

static int skip_annotation(rd_t *r, int depth)
{
    rd_u2(r); /* type_index */
    uint32_t n = rd_u2(r);
    for (uint32_t i = 0; i < n && !r->err; i++) {
        rd_u2(r); /* element_name_index */
        if (!skip_element_value(r, depth)) return 0;
    }
    return !r->err;
}

/* Relocates the u2 instruction offset at the reader's position. */
static int patch_offset(rd_t *r, uint8_t *data, void *ctx, int32_t (*map_insn)(void *, uint32_t))
{
    size_t at = r->pos;
    uint32_t pc = rd_u2(r);
    int32_t n = r->err ? -1 : map_insn(ctx, pc);
    if (n < 0) return 0;
    put_u2(data + at, (uint32_t)n);
    return 1;
}

const char *ta_relocate(uint8_t *data, uint32_t len, void *ctx,
                        int (*map_range)(void *ctx, uint32_t *start, uint32_t *len),
                        int32_t (*map_insn)(void *ctx, uint32_t pc))
{
    rd_t r;
    rd_init(&r, data, len);
    uint32_t n = rd_u2(&r);
    for (uint32_t i = 0; i < n && !r.err; i++) {
        uint32_t target = rd_u1(&r);
        switch (target) {
        case 0x00:
        case 0x01:
        case 0x16:
            rd_u1(&r);
            break;
        case 0x10:
        case 0x17:
        case 0x42: /* 0x42: exception table index, kept */
            rd_u2(&r);
            break;
        case 0x11:
        case 0x12:
            rd_u2(&r);
            break;
        case 0x13:
        case 0x14:
        case 0x15:
            break;
        case 0x40:
        case 0x41: {
            uint32_t k = rd_u2(&r);
            for (uint32_t j = 0; j < k && !r.err; j++) {
                size_t at = r.pos;
                uint32_t start = rd_u2(&r), length = rd_u2(&r);
                rd_u2(&r);
                if (r.err || !map_range(ctx, &start, &length))
                    return "bad local variable range in type annotation";
                put_u2(data + at, start);
                put_u2(data + at + 2, length);
            }
            break;
        }
        case 0x43:
        case 0x44:
        case 0x45:
        case 0x46:
            if (!patch_offset(&r, data, ctx, map_insn)) return "bad offset in type annotation";
            break;
        case 0x47:
        case 0x48:
        case 0x49:
        case 0x4A:
        case 0x4B:
            if (!patch_offset(&r, data, ctx, map_insn)) return "bad offset in type annotation";
            rd_u1(&r);
            break;
        default:
            return "unknown type annotation target";
        }
        uint32_t path = rd_u1(&r);
        rd_bytes(&r, (size_t)path * 2);
        if (!skip_annotation(&r, 0)) return "malformed type annotation";
    }
    if (r.err || r.pos != len) return "malformed type annotations";
    return NULL;
}
