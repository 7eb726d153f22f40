/* test_csv_read.c — results CSVs read back (harness/results/csv_read.c): the schema
 * out_csv.c writes round-trips, RFC 4180 quoting, columns found by name,
 * a run killed mid-row, errors that name file and line, the short form of a
 * case, and the grid plots and reports are drawn from.
 * Fixtures: the CSVs in tests/data (CTest runs from the source folder). */
#define _POSIX_C_SOURCE 200809L
#include "kbtest.h"

#include "analysis/results.h"
#include "cli.h" /* KB_EXIT_* */
#include "run/printer.h"

#include <math.h>
#include <stdlib.h>

static const char *write_temp(const char *text) {
    static char path[64];
    snprintf(path, sizeof path, "/tmp/kb_test_csv_XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static int read_text(const char *text, kb_results *res, kb_error *e) {
    const char *path = write_temp(text);
    int rc = kb_results_read(res, path, NULL, e);
    remove(path);
    return rc;
}

KB_TEST(fixture_rows_and_metadata_read_back) {
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(kb_results_read(&res, kbt_src("tests/data/preprocess.csv"), NULL, &e) == KB_OK);
    KB_EXPECT(res.nfiles == 1 && res.count == 12);
    const kb_result_file *m = &res.files[0];
    KB_EXPECT(strcmp(m->run.commit, "3623961") == 0);
    KB_EXPECT(strcmp(m->run.time, "2025-05-12T09:14:03Z") == 0);
    KB_EXPECT(strcmp(m->run.host, "gpu-h100-01") == 0);
    KB_EXPECT_STR_CONTAINS(m->run.command, "kbench run preprocess --sweep default");
    KB_EXPECT_STR_CONTAINS(m->gpu, "NVIDIA H100 80GB HBM3");
    KB_EXPECT_STR_CONTAINS(m->gpu, "driver 12.4");
    KB_EXPECT_NEAR(m->peak_copy_gbps, 2950, 0);
    KB_EXPECT_NEAR(m->peak_sgemm_gflops, 51000, 0);
    const kb_result *r = &res.rows[0];
    KB_EXPECT(strcmp(r->op, "preprocess") == 0 && strcmp(r->variant, "bilinear_naive") == 0);
    KB_EXPECT_STR_CONTAINS(r->params, "n=1 in_h=1080");
    KB_EXPECT(strcmp(r->mode, "cold") == 0 && r->status == KB_ROW_PASS);
    KB_EXPECT_NEAR(r->median_us, 14.8, 1e-9);
    KB_EXPECT_NEAR(r->bytes, 11136000, 0);
    KB_EXPECT(r->deterministic == 1 && r->line == 5);
    kb_results_free(&res);
}

/* The rows through a CSV printer onto f, which already holds `before`
 * (append: as --resume leaves it, new_header: of an older schema), then the
 * file read back into res and removed. */
static int print_and_read(const char *before, int append, int new_header, const kb_row *rows,
                          int nrows, kb_results *res, kb_error *e) {
    char path[] = "/tmp/kb_test_printed_XXXXXX";
    FILE *f = fdopen(mkstemp(path), "w");
    fputs(before, f);
    kb_meta meta;
    char *argv[] = {"kbench", "run", "nms"};
    kb_meta_init(&meta, NULL, 3, argv);
    kb_printer p;
    kb_printer_init(&p, KB_FMT_CSV, f);
    p.append = append;
    p.new_header = new_header;
    p.begin(&p, &meta);
    for (int i = 0; i < nrows; i++) p.row(&p, &rows[i]);
    p.end(&p);
    fclose(f);
    int rc = kb_results_read(res, path, NULL, e);
    remove(path);
    return rc;
}

/* A checked nms/pairwise_fast row of the case params, everything else zero. */
static kb_row fast_nms_row(const char *params) {
    kb_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.op, sizeof row.op, "nms");
    snprintf(row.variant, sizeof row.variant, "pairwise_fast");
    snprintf(row.params, sizeof row.params, "%s", params);
    row.checked = 1;
    return row;
}

KB_TEST(where_says_host_for_a_host_variant_and_device_otherwise) {
    kb_row rows[2] = {fast_nms_row("n=10"), fast_nms_row("n=10")};
    snprintf(rows[1].variant, sizeof rows[1].variant, "cpu_greedy");
    rows[1].flags = KB_HOST;
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(print_and_read("", 0, 0, rows, 2, &res, &e) == KB_OK);
    KB_EXPECT(res.count == 2);
    KB_EXPECT(strcmp(res.rows[0].where, "device") == 0);
    KB_EXPECT(strcmp(res.rows[1].where, "host") == 0);
    KB_EXPECT_STR_CONTAINS(res.files[0].other, "OpenMP threads");
    kb_results_free(&res);
}

/* --force is the forced column: the row reads back forced whatever its reason
 * says, and a forced row is outside what plots and speedups use. */
KB_TEST(forced_is_a_column_not_a_reason_prefix) {
    kb_row rows[2] = {fast_nms_row("n=10"), fast_nms_row("n=20")};
    for (int i = 0; i < 2; i++) rows[i].stats = (kb_stats){.n = 5, .median = 2e-6};
    rows[0].forced = 1;
    snprintf(rows[0].reason, sizeof rows[0].reason, "past its limit");
    snprintf(rows[1].reason, sizeof rows[1].reason, "FORCED is only a word here");
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(print_and_read("", 0, 0, rows, 2, &res, &e) == KB_OK);
    KB_EXPECT(res.count == 2);
    KB_EXPECT(res.rows[0].forced == 1 && !kb_result_timed(&res.rows[0]));
    KB_EXPECT(res.rows[1].forced == 0 && kb_result_timed(&res.rows[1]));
    KB_EXPECT(kb_result_file_has_column(&res.files[0], "forced"));
    kb_results_free(&res);
}

/* A file from before the forced column said it in the reason only. */
KB_TEST(a_file_before_the_forced_column_reads_forced_from_its_reason) {
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(read_text("op,variant,params,status,reason,median_us\n"
                        "nms,blockwalk,n=10,PASS,FORCED past its limit (n <= 8),3.5\n"
                        "nms,blockwalk,n=20,PASS,,3.5\n",
                        &res, &e) == KB_OK);
    KB_EXPECT(res.count == 2);
    KB_EXPECT(res.rows[0].forced == 1 && !kb_result_timed(&res.rows[0]));
    KB_EXPECT(res.rows[1].forced == 0 && kb_result_timed(&res.rows[1]));
    kb_results_free(&res);
}

/* The run's facts are one struct (results/header.h): what the writer put in
 * a file's header is what the reader gives back, field by field. */
KB_TEST(the_run_header_reads_back_as_it_was_written) {
    char path[] = "/tmp/kb_test_header_XXXXXX";
    FILE *f = fdopen(mkstemp(path), "w");
    kb_meta meta;
    char *argv[] = {"kbench", "run", "nms", "-a", "n=[10,20]"};
    kb_meta_init(&meta, NULL, 5, argv);
    snprintf(meta.run.shard, sizeof meta.run.shard, "1/4 of nms: 3 of the sweep's 12 pairs");
    snprintf(meta.run.cpu, sizeof meta.run.cpu, "Some CPU, 2.1 GHz");
    meta.run.omp_threads = 24;
    snprintf(meta.run.l2_flush, sizeof meta.run.l2_flush, "write-read");
    snprintf(meta.run.interleave, sizeof meta.run.interleave, "%s", KB_INTERLEAVE_FACT);
    kb_printer p;
    kb_printer_init(&p, KB_FMT_CSV, f);
    p.begin(&p, &meta);
    kb_row row = fast_nms_row("n=10");
    p.row(&p, &row);
    p.end(&p);
    fclose(f);
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(kb_results_read(&res, path, NULL, &e) == KB_OK);
    remove(path);
    const kb_run_header *w = &meta.run, *r = &res.files[0].run;
    KB_EXPECT(strcmp(r->commit, w->commit) == 0 && strcmp(r->time, w->time) == 0);
    KB_EXPECT(strcmp(r->host, w->host) == 0 && strcmp(r->command, w->command) == 0);
    KB_EXPECT(strcmp(r->shard, w->shard) == 0 && strcmp(r->l2_flush, w->l2_flush) == 0);
    KB_EXPECT(strcmp(r->cpu, w->cpu) == 0 && r->omp_threads == 24);
    KB_EXPECT(strcmp(r->interleave, KB_INTERLEAVE_FACT) == 0);
    kb_results_free(&res);
}

/* interleaved: yes for a row timed in turns, no for one timed alone; a file
 * from before the column timed every row alone. */
KB_TEST(interleaved_round_trips_and_is_no_before_the_column) {
    kb_row rows[2] = {fast_nms_row("n=10"), fast_nms_row("n=20")};
    rows[0].interleaved = 1;
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(print_and_read("", 0, 0, rows, 2, &res, &e) == KB_OK);
    KB_EXPECT(res.count == 2);
    KB_EXPECT(res.rows[0].interleaved == 1 && res.rows[1].interleaved == 0);
    KB_EXPECT(kb_result_file_has_column(&res.files[0], "interleaved"));
    char buf[8];
    kb_result_field(&res.rows[0], kb_column_find("interleaved"), buf, sizeof buf);
    KB_EXPECT(strcmp(buf, "yes") == 0);
    kb_results_free(&res);
    kb_results old = {0};
    KB_EXPECT(read_text("op,variant,params,status\nnms,a,n=1,PASS\n", &old, &e) == KB_OK);
    KB_EXPECT(old.count == 1 && old.rows[0].interleaved == 0);
    KB_EXPECT(old.files[0].run.interleave[0] == '\0');
    kb_results_free(&old);
}

/* A peer is the peer column's fact, not its name: a variant that happens
 * to be named peer:x is no peer where the column says so. */
KB_TEST(peer_is_a_column_not_a_name_prefix) {
    kb_row rows[2] = {fast_nms_row("n=10"), fast_nms_row("n=20")};
    snprintf(rows[0].variant, sizeof rows[0].variant, "peer:torch");
    rows[0].peer = 1;
    snprintf(rows[1].variant, sizeof rows[1].variant, "peer:mine");
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(print_and_read("", 0, 0, rows, 2, &res, &e) == KB_OK);
    KB_EXPECT(res.count == 2);
    KB_EXPECT(res.rows[0].peer == 1 && res.rows[1].peer == 0);
    KB_EXPECT(kb_result_file_has_column(&res.files[0], "peer"));
    kb_results_free(&res);
}

/* A file from before the peer column named its peers peer:NAME. */
KB_TEST(a_file_before_the_peer_column_reads_peers_from_their_names) {
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(read_text("op,variant,params,status,median_us\n"
                        "nms,peer:torchvision,n=10,PASS,3.5\n"
                        "nms,blockwalk,n=10,PASS,3.5\n",
                        &res, &e) == KB_OK);
    KB_EXPECT(res.count == 2);
    KB_EXPECT(res.rows[0].peer == 1 && res.rows[1].peer == 0);
    kb_results_free(&res);
}

/* A row that never ran is NOT_RUN; before that status, an ERROR whose reason
 * began "not run: " (and only that: the text elsewhere is text). */
KB_TEST(not_run_is_a_status_and_old_files_not_run_errors_read_as_it) {
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(read_text("op,variant,params,status,reason,note\n"
                        "nms,blockwalk,n=10,NOT_RUN,the device was lost,\n"
                        "nms,blockwalk,n=20,ERROR,not run: the CUDA context was lost,\n"
                        "nms,blockwalk,n=30,ERROR,launch failed; not run: later,\n"
                        "nms,blockwalk,n=40,FAIL,\"x,ERROR,not run: y\",not run: z\n",
                        &res, &e) == KB_OK);
    KB_EXPECT(res.count == 4);
    KB_EXPECT(res.rows[0].status == KB_ROW_NOT_RUN);
    KB_EXPECT(res.rows[1].status == KB_ROW_NOT_RUN);
    KB_EXPECT(res.rows[2].status == KB_ROW_ERROR);
    KB_EXPECT(res.rows[3].status == KB_ROW_FAIL);
    KB_EXPECT(strcmp(kb_status_name(KB_ROW_NOT_RUN), "NOT_RUN") == 0);
    kb_results_free(&res);
}

/* The peaks are header fields of their own, read by name: the gpu: line's
 * text rounds them (2950 GB/s), the fields do not. */
KB_TEST(device_peaks_are_header_fields_not_the_gpu_lines_text) {
    kb_device dev = {0};
    snprintf(dev.name, sizeof dev.name, "NVIDIA H200");
    snprintf(dev.uuid, sizeof dev.uuid, "GPU-1234");
    dev.peak_copy_gbps = 2950.4;
    dev.peak_sgemm_gflops = 51000.7;
    char path[] = "/tmp/kb_test_peaks_XXXXXX";
    FILE *f = fdopen(mkstemp(path), "w");
    kb_meta meta;
    char *argv[] = {"kbench", "run", "nms"};
    kb_meta_init(&meta, &dev, 3, argv);
    kb_meta_print_lines(f, &meta, "# ");
    fputs("op,variant,params,status\nnms,blockwalk,n=10,PASS\n", f);
    fclose(f);
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(kb_results_read(&res, path, NULL, &e) == KB_OK);
    remove(path);
    KB_EXPECT(res.files[0].peaks_line == 1);
    KB_EXPECT_NEAR(res.files[0].peak_copy_gbps, 2950.4, 1e-9);
    KB_EXPECT_NEAR(res.files[0].peak_sgemm_gflops, 51000.7, 1e-9);
    KB_EXPECT_STR_CONTAINS(res.files[0].gpu, "NVIDIA H200 (GPU-1234)");
    KB_EXPECT(strstr(res.files[0].other, "peaks:") == NULL);
    kb_results_free(&res);
}

KB_TEST(printer_output_round_trips_with_quotes_and_commas) {
    kb_row row = fast_nms_row("n=1000 iou=0.5 classes=1 max_out=0 dist=uniform");
    row.status = KB_ROW_FAIL;
    snprintf(row.reason, sizeof row.reason, "keep[3] = 7, \"reference\" 8");
    snprintf(row.acc.note, sizeof row.acc.note, "fast NMS: 534 kept, drops 56 greedy keeps");
    row.stats = (kb_stats){.n = 20, .median = 9.8e-6, .noise = 0.006};
    row.cost.bytes = 28004;
    row.workspace_bytes = 128000;
    row.checked = 1;
    row.acc.rel_l2 = 1.5e-3;
    row.acc.dropped = 56;
    row.deterministic = 0;
    kb_row rows[2] = {row, row};
    rows[1].acc.dropped = -1; /* not counted: an empty field */

    kb_results res = {0};
    kb_error e;
    KB_EXPECT(print_and_read("", 0, 0, rows, 2, &res, &e) == KB_OK);
    KB_EXPECT(res.count == 2);
    const kb_result *r = &res.rows[0];
    KB_EXPECT_NEAR(r->dropped, 56, 0);
    KB_EXPECT(isnan(res.rows[1].dropped));
    KB_EXPECT(strcmp(r->reason, row.reason) == 0);
    KB_EXPECT(strcmp(r->note, row.acc.note) == 0);
    KB_EXPECT(strcmp(r->params, row.params) == 0);
    KB_EXPECT(r->status == KB_ROW_FAIL && r->deterministic == 0);
    KB_EXPECT_NEAR(r->median_us, 9.8, 1e-9);
    KB_EXPECT_NEAR(r->noise_pct, 0.6, 1e-9);
    KB_EXPECT_NEAR(r->workspace_bytes, 128000, 0);
    KB_EXPECT_NEAR(r->rel_l2, 1.5e-3, 1e-12);
    KB_EXPECT_STR_CONTAINS(res.files[0].run.command, "kbench run nms");
    kb_results_free(&res);
}

KB_TEST(kernel_time_and_host_repeats_round_trip_and_are_empty_where_absent) {
    kb_row rows[3] = {fast_nms_row("n=10"), fast_nms_row("n=20"), fast_nms_row("n=30")};
    rows[0].kn = 40;
    rows[0].ksum_median = 6.1e-6;
    rows[0].ksum_p10 = 6.0e-6;
    rows[0].ksum_p90 = 6.3e-6;
    rows[0].kspan_median = 6.4e-6;
    rows[0].krecords = 2;
    snprintf(rows[2].variant, sizeof rows[2].variant, "cpu_greedy");
    rows[2].flags = KB_HOST;
    rows[2].repeats = 3;
    rows[2].repeat_spread = 0.125;
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(print_and_read("", 0, 0, rows, 3, &res, &e) == KB_OK);
    KB_EXPECT(res.count == 3);
    const kb_result *r = &res.rows[0];
    KB_EXPECT_NEAR(r->kernel_us, 6.1, 1e-9);
    KB_EXPECT_NEAR(r->kernel_p10_us, 6.0, 1e-9);
    KB_EXPECT_NEAR(r->kernel_p90_us, 6.3, 1e-9);
    KB_EXPECT_NEAR(r->span_us, 6.4, 1e-9);
    KB_EXPECT_NEAR(r->kernels, 2, 1e-9);
    KB_EXPECT(isnan(r->repeats) && isnan(r->repeat_spread_pct));
    KB_EXPECT(isnan(res.rows[1].kernel_us) && isnan(res.rows[1].span_us)); /* no CUPTI */
    KB_EXPECT(isnan(res.rows[2].kernel_us));
    KB_EXPECT_NEAR(res.rows[2].repeats, 3, 0);
    KB_EXPECT_NEAR(res.rows[2].repeat_spread_pct, 12.5, 1e-9);
    KB_EXPECT(kb_result_file_has_column(&res.files[0], "kernel_us"));
    kb_results_free(&res);
}

KB_TEST(quoted_newline_keeps_line_numbers_right) {
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(read_text("op,variant,params,status,note\r\n"
                        "nms,a,n=1,PASS,\"two\nlines, \"\"quoted\"\"\"\r\n"
                        "nms,b,n=1,PASS,plain\r\n",
                        &res, &e) == KB_OK);
    KB_EXPECT(res.count == 2);
    KB_EXPECT(strcmp(res.rows[0].note, "two\nlines, \"quoted\"") == 0);
    KB_EXPECT(strcmp(res.rows[1].note, "plain") == 0);
    KB_EXPECT(res.rows[1].line == 4);
    kb_results_free(&res);
}

KB_TEST(unknown_columns_are_ignored_and_missing_ones_read_as_nan) {
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(read_text("variant,gpu_temp_c,op,params,status,median_us\n"
                        "peer:torchvision,61,nms,n=1000,PASS,110.4\n",
                        &res, &e) == KB_OK);
    KB_EXPECT(res.count == 1);
    const kb_result *r = &res.rows[0];
    KB_EXPECT(strcmp(r->op, "nms") == 0 && strcmp(r->variant, "peer:torchvision") == 0);
    KB_EXPECT(r->peer == 1); /* an old file: its peer: name says so */
    KB_EXPECT_NEAR(r->median_us, 110.4, 1e-9);
    KB_EXPECT(isnan(r->gbps) && isnan(r->noise_pct) && isnan(r->workspace_bytes));
    KB_EXPECT(strcmp(r->mode, "cold") == 0 && r->deterministic == -1);
    kb_results_free(&res);
}

/* The column came after the note: a file from before it states the count in
 * the note only; a file with the column is taken at its word (empty: none). */
KB_TEST(dropped_is_read_from_the_note_only_in_files_without_its_column) {
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(
        read_text("op,variant,params,status,note\n"
                  "nms,pairwise_fast,n=1,PASS,\"fast NMS: 534 kept, drops 56 greedy keeps\"\n"
                  "nms,blockwalk,n=1,PASS,\n"
                  "op,variant,params,status,note,dropped\n"
                  "nms,pairwise_fast,n=2,PASS,\"fast NMS: 534 kept, drops 56 greedy keeps\",\n"
                  "nms,pairwise_fast,n=3,PASS,x,7\n",
                  &res, &e) == KB_OK);
    KB_EXPECT(res.count == 4);
    KB_EXPECT_NEAR(res.rows[0].dropped, 56, 0);
    KB_EXPECT(isnan(res.rows[1].dropped));
    KB_EXPECT(isnan(res.rows[2].dropped));
    KB_EXPECT_NEAR(res.rows[3].dropped, 7, 0);
    kb_results_free(&res);
}

/* --resume on a file of the older schema: the printer writes the current
 * header again, and both kinds of rows read back. */
KB_TEST(resumed_file_of_an_older_schema_gets_the_current_header_again) {
    kb_row row = fast_nms_row("n=2");
    row.acc.dropped = 3;
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(print_and_read("op,variant,params,status,note\nnms,blockwalk,n=1,PASS,old\n", 1, 1,
                             &row, 1, &res, &e) == KB_OK);
    KB_EXPECT(res.count == 2);
    KB_EXPECT(strcmp(res.rows[0].note, "old") == 0 && isnan(res.rows[0].dropped));
    KB_EXPECT(strcmp(res.rows[1].variant, "pairwise_fast") == 0);
    KB_EXPECT_NEAR(res.rows[1].dropped, 3, 0);
    kb_results_free(&res);
}

KB_TEST(partial_last_line_is_reported_and_skipped) {
    kb_results res = {0};
    kb_error e;
    char wpath[] = "/tmp/kb_test_warn_XXXXXX";
    FILE *warn = fdopen(mkstemp(wpath), "w+");
    KB_EXPECT(kb_results_read(&res, kbt_src("tests/data/partial_last_line.csv"), warn, &e) ==
              KB_OK);
    KB_EXPECT(res.count == 2);
    char text[512] = "";
    rewind(warn);
    size_t n = fread(text, 1, sizeof text - 1, warn);
    text[n] = '\0';
    fclose(warn);
    remove(wpath);
    KB_EXPECT_STR_CONTAINS(text, "partial_last_line.csv:7: last line cut short");
    KB_EXPECT_STR_CONTAINS(text, "skipped");
    kb_results_free(&res);
}

/* Reading text must fail with a message containing want. */
static void expect_error(const char *text, const char *want) {
    kb_results res = {0};
    kb_error e = {""};
    KB_EXPECT(read_text(text, &res, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, want);
    KB_EXPECT(res.count == 0);
    kb_results_free(&res);
}

KB_TEST(missing_required_column_names_file_line_and_column) {
    expect_error("# kbench x | t | host h\nop,variant,params,median_us\nnms,a,n=1,1\n",
                 ":2: the header has no 'status' column");
}

KB_TEST(short_row_in_the_middle_is_an_error_naming_its_line) {
    expect_error("op,variant,params,status\nnms,a,n=1,PASS\nnms,b\nnms,c,n=1,PASS\n",
                 ":3: 2 fields, but the header has 4");
}

KB_TEST(bad_status_and_bad_number_name_the_line) {
    expect_error("op,variant,params,status\nnms,a,n=1,GREAT\n",
                 ":2: status 'GREAT' is not one of PASS");
    expect_error("op,variant,params,status,median_us\nnms,a,n=1,PASS,fast\n",
                 ":2: median_us 'fast' is not a number");
}

KB_TEST(missing_file_is_an_error_naming_it) {
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(kb_results_read(&res, kbt_src("tests/data/no_such.csv"), NULL, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, kbt_src("tests/data/no_such.csv: cannot open"));
    kb_results_free(&res);
}

KB_TEST(short_case_keeps_only_axes_off_their_defaults) {
    char buf[256];
    const kb_op *pp = kb_find_op("preprocess"), *nms = kb_find_op("nms");
    kb_params_short(pp,
                    "n=16 in_h=1080 in_w=1920 out_h=640 out_w=640 interp=nearest dtype=f32 "
                    "norm=imagenet image=synthetic",
                    buf, sizeof buf);
    KB_EXPECT(strcmp(buf, "n=16 interp=nearest") == 0);
    kb_params_short(nms, "n=1000 iou=0.50 classes=1 max_out=0 dist=uniform", buf, sizeof buf);
    KB_EXPECT(strcmp(buf, "(defaults)") == 0); /* 0.50 is the default 0.5 */
    kb_params_short(pp, "n=1 image=/data/my photos/a.jpg", buf, sizeof buf);
    KB_EXPECT(strcmp(buf, "image=/data/my photos/a.jpg") == 0);
    kb_params_short(NULL, "x=1 y=2", buf, sizeof buf);
    KB_EXPECT(strcmp(buf, "x=1 y=2") == 0);
}

KB_TEST(view_orders_registry_variants_then_peers_and_cases_by_size) {
    const char *const files[] = {kbt_src("tests/data/preprocess_peers.csv"),
                                 kbt_src("tests/data/preprocess.csv")};
    kb_results res = {0};
    kb_error e;
    kb_op_view *views;
    int n;
    KB_EXPECT(kb_results_load(files, 2, &res, &views, &n, &e) == KB_EXIT_OK);
    KB_EXPECT(n == 1 && views[0].def == kb_find_op("preprocess"));
    const kb_op_view *v = &views[0];
    KB_EXPECT(v->nvariants == 8 && v->ncases == 6);
    KB_EXPECT(strcmp(v->variants[0], "nearest_naive") == 0); /* registry order */
    KB_EXPECT(strcmp(v->variants[6], "peer:opencv_cuda") == 0);
    KB_EXPECT(strcmp(v->variants[7], "peer:torch") == 0);
    KB_EXPECT(v->variant_rank[0] == 0 && v->variant_rank[7] == -1);
    for (int c = 1; c < v->ncases; c++) KB_EXPECT(v->bytes[c - 1] <= v->bytes[c]);
    KB_EXPECT_STR_CONTAINS(v->cases[0], "n=1 ");
    kb_views_free(views, n);
    kb_results_free(&res);
}

KB_TEST(baseline_is_the_first_of_the_list_that_ran_on_the_case) {
    const char *const files[] = {kbt_src("tests/data/preprocess.csv"),
                                 kbt_src("tests/data/nms.csv")};
    kb_results res = {0};
    kb_error e;
    kb_op_view *views;
    int n;
    KB_EXPECT(kb_results_load(files, 2, &res, &views, &n, &e) == KB_EXIT_OK);
    KB_EXPECT(n == 2);
    const kb_op_view *pp = &views[0], *nms = &views[1];
    for (int c = 0; c < pp->ncases; c++) {
        int b = kb_view_baseline(pp, c, NULL);
        const char *interp = strstr(pp->cases[c], "interp=") + 7;
        const char *want = strncmp(interp, "nearest", 7) == 0     ? "nearest_naive"
                           : strncmp(interp, "letterbox", 9) == 0 ? "letterbox_warpaffine"
                                                                  : "bilinear_naive";
        KB_EXPECT(b >= 0 && strcmp(pp->variants[b], want) == 0);
    }
    int big = nms->ncases - 1; /* n=100000: bitmask_host is UNSUPPORTED there */
    KB_EXPECT_STR_CONTAINS(nms->cases[big], "n=100000");
    KB_EXPECT(kb_view_baseline(nms, big, NULL) == -1);
    KB_EXPECT(kb_view_baseline(nms, big, "blockwalk") == kb_view_variant(nms, "blockwalk"));
    KB_EXPECT(kb_view_baseline(nms, big, "no_such_variant") == -1);
    kb_views_free(views, n);
    kb_results_free(&res);
}

KB_TEST(duplicated_column_is_an_error_naming_the_column_and_the_file) {
    kb_results res = {0};
    kb_error e = {""};
    const char *path = write_temp("op,variant,params,status,median_us,median_us\n"
                                  "nms,a,n=1,PASS,100,1\n");
    KB_EXPECT(kb_results_read(&res, path, NULL, &e) == KB_ERR);
    KB_EXPECT_STR_CONTAINS(e.msg, path);
    KB_EXPECT_STR_CONTAINS(e.msg, ":1: the header has the column 'median_us' twice");
    remove(path);
    kb_results_free(&res);
}

KB_TEST(utf8_byte_order_mark_before_the_header_is_skipped) {
    kb_results res = {0};
    kb_error e = {""};
    KB_EXPECT(read_text("\xEF\xBB\xBFop,variant,params,status,median_us\nnms,a,n=1,PASS,7\n", &res,
                        &e) == KB_OK);
    KB_EXPECT(res.count == 1);
    if (res.count == 1) {
        KB_EXPECT(strcmp(res.rows[0].op, "nms") == 0);
        KB_EXPECT_NEAR(res.rows[0].median_us, 7, 0);
    }
    kb_results_free(&res);
}

KB_TEST(file_says_which_columns_every_header_has) {
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(read_text("op,variant,params,status,median_us\nnms,a,n=1,PASS,7\n"
                        "op,variant,params,status\nnms,b,n=1,PASS\n",
                        &res, &e) == KB_OK);
    KB_EXPECT(kb_result_file_has_column(&res.files[0], "status"));
    KB_EXPECT(!kb_result_file_has_column(&res.files[0], "median_us")); /* not in the second */
    KB_EXPECT(!kb_result_file_has_column(&res.files[0], "noise_pct"));
    kb_results_free(&res);
}

static void key(const char *op, const char *params, char *buf) {
    kb_params_key(op ? kb_find_op(op) : NULL, params, buf, 1024);
}

KB_TEST(params_key_compares_numbers_by_value_per_axis_kind) {
    char a[1024], b[1024];
    key("nms", "n=1000 iou=0.50 classes=1 max_out=0 dist=uniform", a);
    key("nms", "n=1000 iou=0.5 classes=1 max_out=0 dist=uniform", b);
    KB_EXPECT(strcmp(a, b) == 0);
    KB_EXPECT(strcmp(a, "n=1000 iou=0.5 classes=1 max_out=0 dist=uniform") == 0);
    key("nms", "n=1000.0 iou=5e-1 classes=1 max_out=0 dist=uniform", b); /* INT by value too */
    KB_EXPECT(strcmp(a, b) == 0);
    key("rpn_proposals", "min_bbox_size=16", a);
    key("rpn_proposals", "min_bbox_size=16.0", b);
    KB_EXPECT(strcmp(a, b) == 0);
    KB_EXPECT(strstr(a, " min_bbox_size=16 ") != NULL);
    key("nms", "iou=0.1", a);
    /* the shortest text that reads back, not %.17g */
    KB_EXPECT(strcmp(a, "n=1000 iou=0.1 classes=1 max_out=0 dist=uniform") == 0);
    key("nms", "iou=0.5", a);
    key("nms", "iou=0.55", b);
    KB_EXPECT(strcmp(a, b) != 0);
}

KB_TEST(params_key_orders_axes_as_the_op_and_keeps_text_where_it_knows_no_kind) {
    char a[1024], b[1024];
    key("nms", "dist=uniform iou=0.5 n=1000 classes=1 max_out=0", a);
    KB_EXPECT(strcmp(a, "n=1000 iou=0.5 classes=1 max_out=0 dist=uniform") == 0);
    key("nms", "dist=Uniform", b); /* an ENUM value is text: compared as written */
    KB_EXPECT(strcmp(b, "n=1000 iou=0.5 classes=1 max_out=0 dist=Uniform") == 0);
    key("nms", "n=1000 gpu_temp=60.0", a); /* an axis nms does not have: text, last */
    KB_EXPECT(strcmp(a, "n=1000 iou=0.5 classes=1 max_out=0 dist=uniform gpu_temp=60.0") == 0);
    key(NULL, "x=0.50 y=2", a); /* an op this build does not know: as written */
    KB_EXPECT(strcmp(a, "x=0.50 y=2") == 0);
    key("preprocess", "n=1 image=/data/my photos/a.jpg", a);
    KB_EXPECT(strstr(a, " image=/data/my photos/a.jpg") != NULL);
}

/* A file written before an op gained an axis names no value for it: its rows
 * are the rows of the axis's default. */
KB_TEST(params_key_gives_an_axis_the_row_does_not_name_its_default) {
    char a[1024], b[1024];
    key("nms", "n=25200 iou=0.7", a);
    key("nms", "n=25200 iou=0.7 classes=1 max_out=0 dist=uniform", b);
    KB_EXPECT(strcmp(a, b) == 0);
    key("nms", "n=25200 iou=0.7 dist=clustered", b);
    KB_EXPECT(strcmp(a, b) != 0);
}

KB_TEST(rows_read_carry_the_key_and_views_group_cases_by_it) {
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(read_text("op,variant,params,status,median_us,bytes\n"
                        "nms,blockwalk,n=1000 iou=0.50,PASS,10,100\n"
                        "nms,bitmask_gpu,n=1000 iou=0.5,PASS,20,100\n",
                        &res, &e) == KB_OK);
    KB_EXPECT(strcmp(res.rows[0].key, res.rows[1].key) == 0);
    kb_op_view *views;
    int n;
    KB_EXPECT(kb_views_build(&res, &views, &n, &e) == KB_OK);
    KB_EXPECT(n == 1 && views[0].ncases == 1 && views[0].nvariants == 2);
    KB_EXPECT(kb_view_cell(&views[0], 0, 0) && kb_view_cell(&views[0], 0, 1));
    kb_views_free(views, n);
    kb_results_free(&res);
}

KB_TEST(every_device_and_commit_of_joined_and_resumed_runs_is_listed) {
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(read_text("# kbench aaa1111 | 2025-05-12T09:14:03Z | host h\n"
                        "# gpu: NVIDIA H100 (GPU-1111) cc 9.0, 132 SMs | driver 12.4\n"
                        "op,variant,params,status\nnms,a,n=1,PASS\n"
                        "# resumed: kbench bbb2222 | 2025-05-13T09:14:03Z | host h\n"
                        "# resumed: gpu: NVIDIA H100 (GPU-2222) cc 9.0, 132 SMs | driver 12.4\n"
                        "nms,b,n=1,PASS\n"
                        "# kbench aaa1111 | 2025-05-14T09:14:03Z | host h\n"
                        "# gpu: NVIDIA H100 (GPU-1111) cc 9.0, 132 SMs | driver 12.4\n"
                        "op,variant,params,status\nnms,c,n=1,PASS\n",
                        &res, &e) == KB_OK);
    KB_EXPECT(strcmp(res.files[0].devices, "NVIDIA H100 (GPU-1111)\nNVIDIA H100 (GPU-2222)") == 0);
    KB_EXPECT(strcmp(res.files[0].commits, "aaa1111\nbbb2222") == 0);
    char devices[512], commits[128];
    kb_results_runs(&res, "; ", devices, sizeof devices, commits, sizeof commits);
    KB_EXPECT(strcmp(devices, "NVIDIA H100 (GPU-1111); NVIDIA H100 (GPU-2222)") == 0);
    KB_EXPECT(strcmp(commits, "aaa1111; bbb2222") == 0);
    kb_results_free(&res);
}

KB_TEST(l2_flush_kinds_of_a_file_and_its_resumed_runs_are_listed) {
    char *argv[] = {"kbench", "run", "nms"};
    kb_meta m;
    kb_meta_init(&m, NULL, 3, argv);
    snprintf(m.run.l2_flush, sizeof m.run.l2_flush, "read");
    char path[64];
    snprintf(path, sizeof path, "/tmp/kb_test_csv_XXXXXX");
    FILE *f = fdopen(mkstemp(path), "w");
    kb_meta_print_lines(f, &m, "# ");
    fputs("op,variant,params,status\nnms,a,n=1,PASS\n", f);
    snprintf(m.run.l2_flush, sizeof m.run.l2_flush, "discard");
    kb_meta_print_lines(f, &m, "# resumed: ");
    kb_meta_print_lines(f, &m, "# resumed: ");
    fclose(f);
    kb_results res = {0};
    kb_error e;
    KB_EXPECT(kb_results_read(&res, path, NULL, &e) == KB_OK);
    remove(path);
    KB_EXPECT(strcmp(res.files[0].l2_flushes, "read\ndiscard") == 0);
    kb_results_free(&res);
}
