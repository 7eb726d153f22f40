/* cli_ext.c — the options that bring variants from outside the tree into a
 * command's table (--plugin, --py, --python, --peers: run, check and list;
 * their option rows: KB_EXT_OPTS in cli.h), and loading them before anything is planned
 * (run/loaded.h, run/py_bridge.h). */
#define _DEFAULT_SOURCE /* DT_REG */
#include "cli.h"

#include "run/loaded.h"
#include "run/py_bridge.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int kb_ext_set(const kb_opt *o, void *dst, const char *v, kb_error *e) {
    kb_ext_args *x = (kb_ext_args *)((char *)dst + o->at);
    if (strcmp(o->names, "--peers") == 0) {
        x->peers = 1;
        return KB_OK;
    }
    if (!v[0]) return kb_fail(e, "expected a value, got an empty one");
    int plugin = strcmp(o->names, "--plugin") == 0, py = strcmp(o->names, "--py") == 0;
    if ((plugin && x->nplugins == KB_EXT_MAX) || (py && x->npys == KB_EXT_MAX))
        return kb_fail(e, "at most %d %s options", KB_EXT_MAX, o->names);
    if (plugin)
        x->plugins[x->nplugins++] = v;
    else if (py)
        x->pys[x->npys++] = v;
    else
        x->python = v;
    return KB_OK;
}

/* peers/ beside an installed kbench (PREFIX/share/kbench/peers), else the
 * source tree's. */
static int peers_dir(char *out, size_t n) {
    char exe[PATH_MAX - 32];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    struct stat st;
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        snprintf(out, n, "%s/../share/kbench/peers", exe);
        if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) return KB_OK;
    }
#ifdef KB_SOURCE_DIR
    snprintf(out, n, "%s/peers", KB_SOURCE_DIR);
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) return KB_OK;
#endif
    return KB_ERR;
}

static int by_name(const struct dirent **a, const struct dirent **b) {
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_peer_file(const struct dirent *d) {
    size_t n = strlen(d->d_name);
    return d->d_name[0] != '_' && d->d_name[0] != '.' && n > 3 &&
           strcmp(d->d_name + n - 3, ".py") == 0;
}

int kb_ext_load(const char *cmd, const kb_ext_args *x) {
    kb_error e;
    for (int i = 0; i < x->nplugins; i++)
        if (kb_loaded_add_plugin(x->plugins[i], &e) != KB_OK)
            return kb_usage_error(cmd, "%s", e.msg);
    if (x->python) kb_py_set_python(x->python);
    for (int i = 0; i < x->npys; i++)
        if (kb_py_add_file(x->pys[i], &e) != KB_OK) return kb_usage_error(cmd, "--py %s", e.msg);
    if (!x->peers) return KB_EXIT_OK;
    char dir[PATH_MAX];
    if (peers_dir(dir, sizeof dir) != KB_OK)
        return kb_usage_error(cmd, "--peers: no peers folder (share/kbench/peers beside kbench, "
                                   "or peers/ of its source tree)");
    struct dirent **names = NULL;
    int n = scandir(dir, &names, is_peer_file, by_name);
    if (n < 0) return kb_usage_error(cmd, "--peers: cannot read %s", dir);
    int rc = KB_EXIT_OK;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (rc == KB_EXIT_OK && kb_py_add_file(path, &e) != KB_OK)
            rc = kb_usage_error(cmd, "--peers: %s", e.msg);
        free(names[i]);
    }
    free(names);
    return rc;
}

int kb_ext_any(const kb_ext_args *x) {
    return x->nplugins || x->npys || x->peers;
}
