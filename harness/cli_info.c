/* cli_info.c — `kbench info`: the device, driver, clocks and measured peaks. */
#include "cli.h"

#include "run/device.h"
#include "run/ktime.h"
#include "run/row.h" /* kb_git_commit */

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Last, once the peaks are measured (CUPTI's tracing would run under
 * them): loaded as a run loads it (runner.c), and needing no device to say
 * why it cannot be. */
static void kernel_timer_line(void) {
    kb_error e;
    if (kb_ktime_open(&e) == KB_OK)
        printf("kernel timer (--timer kernels): CUPTI activity enabled\n");
    else
        printf("kernel timer (--timer kernels): unavailable: %s\n", e.msg);
}

typedef struct info_args {
    long ordinal;
    int remeasure;
} info_args;

const kb_opt kb_info_opts[] = {
    KB_OPT_LONG("--device", "N", "CUDA device ordinal (default 0)", info_args, ordinal, 0, 1023),
    KB_OPT_SWITCH("--remeasure", "measure the peaks again and refresh the cache", info_args,
                  remeasure),
    KB_OPT_END,
};

static void info_help(void) {
    fputs("usage: kbench info [--device N] [--remeasure]\n\n"
          "The device (name, UUID, compute capability, SMs, L2, memory), its maximum\n"
          "and current clocks, the driver and runtime, and the peaks every row's\n"
          "percentages are taken of, measured here: device-to-device copy bandwidth\n"
          "(bytes read + written) and cuBLAS SGEMM fp32. Peaks are cached per device\n"
          "under $XDG_CACHE_HOME/kbench (or ~/.cache/kbench).\n\n",
          stdout);
    kb_opts_help(stdout, kb_info_opts);
    puts("  -h, --help\n"
         "It also says whether `run --timer kernels` can read kernel time: libcupti\n"
         "loaded ($KB_CUPTI_LIB, else the toolkit's) and its activity enabled, or\n"
         "why not (the dlopen or CUPTI error).\n"
         "With no CUDA device it says so and exits 0: there is nothing wrong with\n"
         "asking.");
}

int kb_cmd_info(int argc, char **argv) {
    info_args args = {0, 0};
    int prc = kb_opts_parse("info", kb_info_opts, &args, argc, argv, NULL);
    if (prc == KB_OPTS_HELP) {
        info_help();
        return KB_EXIT_OK;
    }
    if (prc != KB_EXIT_OK) return prc;
    long ordinal = args.ordinal;
    int remeasure = args.remeasure;
    printf("kbench %s, built for CUDA architectures %s\nsources sha256 %s\n", kb_git_commit,
           kb_cuda_architectures, kb_source_sha256[0] ? kb_source_sha256 : "unknown");
    kb_device d;
    kb_error e;
    int rc = kb_device_open((int)ordinal, &d, &e);
    if (rc == KB_NO_DEVICE) {
        printf("%s\n", e.msg);
        kernel_timer_line();
        return KB_EXIT_OK;
    }
    if (rc != KB_OK) {
        fprintf(stderr, "kbench info: %s\n", e.msg);
        return KB_EXIT_USAGE;
    }
    if (kb_device_peaks(&d, remeasure, &e) != KB_OK)
        fprintf(stderr, "kbench info: could not measure the peaks: %s\n", e.msg);
    kb_device_describe(&d, stdout);
    if (kb_gpu_have_code(&e) != KB_OK) printf("  %s\n", e.msg);
    kernel_timer_line();
    return KB_EXIT_OK;
}
