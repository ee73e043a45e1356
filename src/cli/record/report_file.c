#include "cli/record/record.h"
#include "format/hprof_format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int hp_record_copy(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0) return -1;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        int e = errno;
        close(in);
        errno = e;
        return -1;
    }
    char buf[1 << 16];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof buf)) != 0 && rc == 0) {
        if (n < 0 && errno == EINTR) continue;
        for (ssize_t off = 0; n > 0 && off < n && rc == 0;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno != EINTR) rc = -1;
            off += w > 0 ? w : 0;
        }
        if (n < 0) rc = -1;
    }
    int e = errno;
    close(in);
    if (close(out) != 0) rc = -1;
    errno = e;
    return rc;
}

int hp_record_move(const char *from, const char *to)
{
    if (rename(from, to) == 0) return 0;
    if (errno != EXDEV || hp_record_copy(from, to) != 0) return -1;
    unlink(from);
    return 0;
}

void hp_record_print_heads(FILE *out, const char *path, int lines)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return;
    char line[1024];
    bool ascii = fgets(line, sizeof line, f) &&
                 strncmp(line, HP_VERSION_1_0_1, strlen(HP_VERSION_1_0_1)) == 0;
    bool records = false; /* past the prelude's "--------" */
    int left = 0;
    while (ascii && fgets(line, sizeof line, f)) {
        if (!records) {
            records = strcmp(line, "--------\n") == 0;
            continue;
        }
        if (line[0] >= 'A' && line[0] <= 'Z' && strstr(line, " BEGIN")) left = lines + 1;
        if (left == 0) continue;
        fputs(line, out);
        bool end = strstr(line, " END") != NULL;
        if (--left == 0 && !end) fputs("...\n", out);
        if (end) left = 0;
    }
    fclose(f);
}
