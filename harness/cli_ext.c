/* cli_ext.c — the options that bring variants from outside the tree into a
 * command's table (--plugin, --py, --python, --peers: run, check and list),
 * and loading them before anything is planned (run/loaded.h, run/py_bridge.h). */
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

const char kb_ext_help[] =
    "variants from outside the tree (docs/plugins.md, docs/python.md):\n"
    "  --plugin PATH.so    load a C/CUDA plugin's variants (repeatable): a shared library\n"
    "                      exporting kb_plugin_entry (KB_PLUGIN(rows), include/kbench/);\n"
    "                      refused (exit 2) when it is not one, lacks the entry, was built\n"
    "                      for another ABI major, or names a variant that exists already\n"
    "  --py FILE.py        the variants of a Python file's KBENCH dict (repeatable), run\n"
    "                      by a Python worker that kbench starts, on the same inputs,\n"
    "                      timed by the same rules and judged by the same check\n"
    "  --python PATH       the interpreter for --py and --peers (default python3)\n"
    "  --peers             also run the peers: the library files of peers/ (torchvision,\n"
    "                      PyTorch, torch.compile, OpenCV, CV-CUDA, kornia), rows\n"
    "                      named peer:NAME\n";

int kb_ext_option(const char *cmd, int argc, char **argv, int *i, kb_ext_args *x) {
    const char *o = argv[*i];
    int plugin = strcmp(o, "--plugin") == 0, py = strcmp(o, "--py") == 0;
    if (strcmp(o, "--peers") == 0) {
        x->peers = 1;
        return 1;
    }
    if (!plugin && !py && strcmp(o, "--python") != 0) return 0;
    if (*i + 1 >= argc || !argv[*i + 1][0]) {
        kb_usage_error(cmd, "%s needs a value", o);
        return -1;
    }
    const char *v = argv[++*i];
    if ((plugin ? x->nplugins : x->npys) == KB_EXT_MAX) {
        kb_usage_error(cmd, "at most %d %s options", KB_EXT_MAX, o);
        return -1;
    }
    if (plugin)
        x->plugins[x->nplugins++] = v;
    else if (py)
        x->pys[x->npys++] = v;
    else
        x->python = v;
    return 1;
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
