/* Runs the fuzz target over every file in the given directories (the kept
 * corpus and crash reproducers), so regular and sanitizer builds replay them. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static int replay(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return -1;
    }
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0, got;
        do {
            if (len == cap) buf = realloc(buf, cap = cap ? cap * 2 : 65536);
            got = fread(buf + len, 1, cap - len, f);
            len += got;
        } while (got > 0);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        n++;
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 1; i < argc; i++) {
        int n = replay(argv[i]);
        if (n < 0) return 1;
        total += n;
    }
    printf("replayed %d inputs\n", total);
    return total > 0 ? 0 : 1;
}
