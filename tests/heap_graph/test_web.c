/* The web UI's pages over a dump whose strings are markup: all of it must be escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli/serve/web.h"
#include "hpbuild.h"

#define EVIL "<script>alert('x')</script>&\""

/* One class named EVIL with a field named EVIL; one rooted instance pointing at itself. */
static void build(hb_buf *b)
{
    hb_init(b, "1.0.2", 8);
    hb_utf8(b, 1, EVIL);
    hb_load_class(b, 1, 0x100, 0, 1);
    size_t rec = hb_begin(b, 0x0C);
    uint64_t names[] = {1};
    uint8_t types[] = {2};
    hb_class_dump(b, 0x100, 0, 8, 1, names, types);
    uint8_t self[8] = {0, 0, 0, 0, 0, 0, 0x02, 0x00};
    hb_instance(b, 0x200, 0, 0x100, self, sizeof self);
    hb_u1(b, 0xFF);
    hb_id(b, 0x200);
    hb_end(b, rec);
}

static void check_page(const hp_web *w, const char *path, const char *id, int status)
{
    hp_html out = {0};
    hp_query q = {id, NULL, NULL};
    assert_int_equal(hp_web_page(w, path, &q, &out), status);
    assert_non_null(out.buf);
    assert_null(strstr(out.buf, "<script"));
    assert_null(strstr(out.buf, "alert('"));
    hp_html_free(&out);
}

static void escapes_everything(void **state)
{
    (void)state;
    hb_buf b;
    build(&b);
    hp_file f;
    hp_error e;
    hp_web w;
    assert_int_equal(hp_open_mem(&f, EVIL, b.data, b.len, &e), 0);
    hp_opts o = {.model = hp_model_default()};
    assert_int_equal(hp_web_open(&w, &f, &o, stderr), 0);
    check_page(&w, "/", NULL, 200);
    check_page(&w, "/histo", NULL, 200);
    check_page(&w, "/class", "0x100", 200);
    check_page(&w, "/object", "0x200", 200);
    check_page(&w, "/object", "0x100", 200);
    check_page(&w, "/dominators", "0x200", 200);
    check_page(&w, "/waste", NULL, 200);
    check_page(&w, "/suspects", NULL, 200);
    check_page(&w, "/object", EVIL, 404);
    check_page(&w, "/" EVIL, NULL, 404);

    hp_html out = {0};
    hp_query q = {"0x200", NULL, NULL};
    hp_web_page(&w, "/object", &q, &out);
    assert_non_null(strstr(out.buf, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;"));
    hp_html_free(&out);
    /* The only object retains everything: the one suspect, named by its class. */
    hp_web_page(&w, "/suspects", &q, &out);
    assert_non_null(strstr(out.buf, "<h2>Suspect 1</h2>"));
    assert_non_null(strstr(out.buf, "0x200</a> &lt;script&gt;"));
    hp_html_free(&out);
    hp_web_close(&w);
    hb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(escapes_everything)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
