/* Format detection and the profile set. */
#include "cli/profile/load.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/readers/gunzip.h"
#include "format/hprof_format.h"

static void set_init(hp_profile_set *set, int format, int want)
{
    memset(set, 0, sizeof *set);
    set->format = format;
    set->want = want;
    for (int k = 0; k < HP_PK_NKINDS; k++)
        hp_profile_init(&set->kinds[k], k, format);
}

void hp_profile_set_free(hp_profile_set *set)
{
    for (int k = 0; k < HP_PK_NKINDS; k++)
        hp_profile_free(&set->kinds[k]);
}

static int has_prefix(const uint8_t *buf, size_t len, const char *s)
{
    size_t n = strlen(s) + 1; /* with its NUL: the binary header string */
    return len >= n && memcmp(buf, s, n) == 0;
}

int hp_profile_load_mem(hp_profile_set *set, const char *name, const uint8_t *buf, size_t len,
                        int want, hp_error *err)
{
    int binary = has_prefix(buf, len, HP_VERSION_1_0_1) || has_prefix(buf, len, HP_VERSION_1_0_2);
    set_init(set, binary ? HP_PFMT_BINARY : HP_PFMT_ASCII, want);
    int rc;
    if (binary) {
        hp_file f;
        rc = hp_open_mem(&f, name, buf, len, err);
        if (rc == 0) rc = hp_read_binary(set, &f, err);
        if (rc) {
            hp_error e = *err;
            hp_fail(err, e.offset, "%s at offset %llu", e.what, (unsigned long long)e.offset);
        }
    } else {
        rc = hp_read_ascii(set, (const char *)buf, len, err);
    }
    if (rc) hp_profile_set_free(set);
    return rc;
}

/* A gzipped profile (java.hprof.txt.gz, java.hprof.gz) is inflated into an
 * unlinked temporary file, mapped in place of the compressed one. 0, -1 when
 * it cannot be inflated (as for `hprof` on gzipped dumps), -2 when the
 * inflated file cannot be mapped. */
static int map_inflated(hp_file *f, hp_error *err)
{
    int fd = hp_gunzip_to_temp(f->base, f->size, err);
    hp_close(f);
    if (fd < 0) return -1;
    struct stat st;
    int rc = fstat(fd, &st) == 0 ? 0 : hp_fail(err, 0, "cannot stat: %s", strerror(errno));
    f->size = (uint64_t)st.st_size;
    f->base = (const uint8_t *)"";
    if (rc == 0 && f->size > 0) {
        void *m = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED)
            rc = hp_fail(err, 0, "cannot map the inflated file: %s", strerror(errno));
        else {
            f->base = m;
            f->mapped = 1;
        }
    }
    close(fd);
    return rc ? -2 : 0;
}

int hp_profile_load(hp_profile_set *set, const char *path, int want, hp_error *err)
{
    hp_file f;
    memset(set, 0, sizeof *set);
    if (hp_map_file(&f, path, err)) return -2;
    int rc = hp_is_gzip(f.base, f.size) ? map_inflated(&f, err) : 0;
    if (rc == 0) rc = hp_profile_load_mem(set, path, f.base, (size_t)f.size, want, err);
    hp_close(&f);
    return rc;
}
