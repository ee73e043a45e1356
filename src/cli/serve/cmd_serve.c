/* `hprof serve`: the pages over HTTP with libmicrohttpd, on 127.0.0.1 unless --bind. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/serve/web.h"

enum {
    MAX_URL = 2048,       /* longer request targets get 414 */
    MAX_CONNECTIONS = 64, /* more wait in the listen queue */
    MAX_PER_CLIENT = 32,
    IDLE_SECONDS = 10,
    CONNECTION_MEMORY = 64 * 1024, /* request headers beyond this get 431 from libmicrohttpd */
};

static enum MHD_Result send_page(struct MHD_Connection *c, int status, hp_html *page)
{
    size_t len;
    char *body = hp_html_take(page, &len);
    static const char oom[] = "out of memory\n";
    struct MHD_Response *r =
        body ? MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE)
             : MHD_create_response_from_buffer(sizeof oom - 1, (void *)oom, MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    if (!body) status = 500;
    MHD_add_response_header(r, "Content-Type", "text/html; charset=utf-8");
    /* No script runs on these pages, whatever a dump's strings contain. */
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'none'; style-src 'unsafe-inline'");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    enum MHD_Result rc = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    (void)version;
    (void)upload;
    (void)upload_size;
    (void)state;
    const hp_web *w = cls;
    hp_html page = {0};
    int status;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        status = hp_web_error(&page, w, 405, "Only GET is served", NULL);
    } else if (strlen(url) > MAX_URL) {
        status = hp_web_error(&page, w, 414, "The URL is longer than 2048 bytes", NULL);
    } else {
        hp_query q = {MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "id"),
                      MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "prim"),
                      MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "sort")};
        status = hp_web_page(w, url, &q, &page);
    }
    return send_page(c, status, &page);
}

/* Parses --bind into addr; returns the MHD flag for its family, or -1. */
static int bind_address(const char *text, unsigned port, struct sockaddr_storage *addr)
{
    memset(addr, 0, sizeof *addr);
    struct sockaddr_in *v4 = (struct sockaddr_in *)addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)addr;
    if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        return 0;
    }
    if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        return MHD_USE_IPv6;
    }
    return -1;
}

static struct MHD_Daemon *start(hp_web *w, const hp_opts *o, FILE *err)
{
    struct sockaddr_storage addr;
    const char *host = o->bind ? o->bind : "127.0.0.1";
    int family = bind_address(host, (unsigned)o->port, &addr);
    if (family < 0) {
        fprintf(err, "hprof: error: --bind %s: not an IPv4 or IPv6 address\n", host);
        return NULL;
    }
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | (unsigned)family, (uint16_t)o->port, NULL,
        NULL, handle, w, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)MAX_PER_CLIENT, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_SECONDS,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY, MHD_OPTION_END);
    if (!d) fprintf(err, "hprof: error: cannot listen on %s port %ld\n", host, o->port);
    return d;
}

int hp_cmd_serve(const hp_file *f, const hp_opts *o, FILE *out, FILE *err)
{
    hp_web w;
    int rc = hp_web_open(&w, f, o, err);
    if (rc != HP_EXIT_OK) return rc;
    /* Block the stop signals before libmicrohttpd starts its thread, then wait for one. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    struct MHD_Daemon *d = start(&w, o, err);
    if (!d) {
        hp_web_close(&w);
        return HP_EXIT_IO;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    const char *host = o->bind ? o->bind : "127.0.0.1";
    int v6 = strchr(host, ':') != NULL;
    fprintf(out, "hprof: serving %s at http://%s%s%s:%u/\n", f->path, v6 ? "[" : "", host,
            v6 ? "]" : "", info ? info->port : (unsigned)o->port);
    fflush(out);
    int sig;
    sigwait(&stop, &sig);
    MHD_stop_daemon(d);
    hp_web_close(&w);
    return HP_EXIT_OK;
}
