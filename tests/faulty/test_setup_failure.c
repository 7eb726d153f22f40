/* A setup that fails after it handed back state costs no device memory: the
 * runner tears the state down (kbench.h, setup's contract). The sweep is
 * nearest_naive and fault_setup_fails (256 MiB held when its setup fails)
 * on two cases, in this process; each row records the device's free memory
 * as it is emitted, after its teardown. GPU: exits 77 without a device.
 */
#include "faulty.h"
#include "run/runner.h"
#include "kbtest.h"
#include "preprocess.h"

#include <cuda_runtime.h>

enum { MAX_ROWS = 8 };

typedef struct row_log {
    kb_printer p; /* first: the runner hands rows to &p */
    int n;
    char variant[MAX_ROWS][64];
    kb_status status[MAX_ROWS];
    char reason[MAX_ROWS][1200];
    size_t free_after[MAX_ROWS];
} row_log;

static void log_row(kb_printer *p, const kb_row *r) {
    row_log *l = (row_log *)p;
    if (l->n == MAX_ROWS) return;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) free_b = 0;
    snprintf(l->variant[l->n], sizeof l->variant[0], "%s", r->variant);
    l->status[l->n] = r->status;
    snprintf(l->reason[l->n], sizeof l->reason[0], "%s", r->reason);
    l->free_after[l->n++] = free_b;
}

static void log_nothing(kb_printer *p) {
    (void)p;
}

static void log_begin(kb_printer *p, const kb_meta *m) {
    (void)p, (void)m;
}

KB_TEST(failed_setup_state_is_torn_down) {
    KB_REQUIRE_DEVICE();
    const kb_op *op = kb_find_op("preprocess");
    KB_EXPECT(op != NULL);
    if (!op) return;
    kb_case_list cases = {0};
    kb_error e;
    KB_EXPECT(kb_expand_line(op, "n=[1,2] interp=nearest in_h=64 in_w=96 out_h=32 out_w=48", NULL,
                             0, &cases, &e) == KB_OK);
    static const kb_variant fails = {
        "preprocess", "fault_setup_fails",    "",
        KB_TEST_ONLY, &kb_faulty_setup_fails, "tests/faulty/faulty.cu"};
    const kb_variant *variants[] = {kb_find_variant("preprocess", "nearest_naive"), &fails, NULL};
    kb_run_opts opts = {
        .mode = KB_MODE_COLD,
        .rule = {.max_noise = 0.01, .min_samples = 2, .max_time_s = 0.1, .max_samples = 100},
        .seed = 1,
        .check = 1};
    kb_runner r;
    KB_EXPECT(kb_runner_init(&r, &opts, &e) == KB_OK);
    KB_EXPECT(kb_runner_plan(&r, &cases, variants, &e) == KB_OK);
    kb_device dev;
    KB_EXPECT(kb_device_open(0, &dev, &e) == KB_OK);
    KB_EXPECT(kb_runner_attach(&r, &dev, &e) == KB_OK);
    row_log log = {.p = {.begin = log_begin, .row = log_row, .end = log_nothing}};
    r.printers[r.nprinters++] = &log.p;
    kb_runner_run(&r);

    KB_EXPECT(log.n == 4); /* per case: nearest_naive, then fault_setup_fails */
    for (int i = 0; i < log.n; i++) {
        int fault = i % 2 == 1;
        KB_EXPECT(strcmp(log.variant[i], fault ? "fault_setup_fails" : "nearest_naive") == 0);
        KB_EXPECT(log.status[i] == (fault ? KB_ROW_ERROR : KB_ROW_PASS));
        if (fault) KB_EXPECT_STR_CONTAINS(log.reason[i], "setup fails on purpose");
    }
    /* 256 MiB left behind would show; the allocator's own noise is under 1 MiB. */
    const double slack = 1 << 20;
    for (int i = 1; i < log.n; i += 2) {
        KB_EXPECT(log.free_after[i] > 0 && log.free_after[i - 1] > 0);
        KB_EXPECT_NEAR((double)log.free_after[i], (double)log.free_after[i - 1], slack);
    }
    kb_runner_free(&r);
    kb_case_list_free(&cases);
}
