/* out_file.h — output files that a run ending before its first row leaves
 * as they were (out_file.c). */
#ifndef KB_OUT_FILE_H
#define KB_OUT_FILE_H

#include "printer.h"
#include "core/files.h" /* kb_make_dirs */

/* An output file (-o, --resume) that a run ending before its first row
 * leaves as it was (out_file.c). The printer writes to a temporary beside
 * FILE (FILE.kbench-tmp-PID) that replaces FILE once the first row is
 * written and flushed; later rows go on into FILE itself, flushed one by
 * one, so a killed run keeps its rows. A path that exists but is not a
 * regular file (/dev/null, a FIFO) is written directly. A symbolic link is
 * written through: its target is what is replaced, and the link stays.
 * While the file is open, this process holds a lock on FILE.kbench-lock
 * beside the target (out_file.c says why there): a second writer is
 * refused, naming the holder. */
typedef enum kb_out_failure {
    KB_OUT_PATH = 1,  /* the path cannot be written: no folder, no permission, a folder */
    KB_OUT_BUSY,      /* another process is writing the file (it holds the lock) */
    KB_OUT_RESOURCES, /* the system ran short: file descriptors, memory, disk space */
} kb_out_failure;

/* Whose fault a failure of errno err is: KB_OUT_RESOURCES for the system's
 * (EMFILE, ENOMEM, ENOSPC, ...), else KB_OUT_PATH. */
kb_out_failure kb_out_failure_of(int err);

typedef struct kb_out_file {
    kb_printer p; /* first: the runner hands rows to &p */
    void (*format_row)(kb_printer *p, const kb_row *r);
    char path[1024];   /* as given, for messages */
    char target[1024]; /* path, or where the symbolic link(s) at path lead: what is replaced */
    char tmp[1100];    /* the temporary; "" once renamed onto target, or when direct */
    char lock[1100];   /* target.kbench-lock while held, else "" */
    int lock_fd;
    int failed; /* a write or the rename failed: err says which */
    kb_error err;
    kb_out_failure failure; /* why kb_out_file_open / _open_whole failed */
} kb_out_file;

/* Takes the lock, names (on stderr) the temporaries of FILE that killed runs
 * left, removing those provably stale (out_file.c), then creates the
 * temporary (with FILE's permissions where FILE exists) and a printer of fmt
 * on it. The message of a failure names the file and why; o->failure says
 * whose fault it is. */
int kb_out_file_open(kb_out_file *o, const char *path, kb_format fmt, kb_error *e);
/* Ends the printer, closes the file and gives the lock back; a temporary
 * that never got a row is removed, so FILE is as it was, and so is one whose
 * first row could not be written (a full disk). KB_ERR when a write or the
 * rename failed. */
int kb_out_file_close(kb_out_file *o, kb_error *e);
/* A run that completed with no row to write (a shard given no pair of the
 * sweep) keeps its file all the same: the temporary, metadata and column
 * header, becomes FILE now. KB_OK when it has become FILE already. */
int kb_out_file_keep_empty(kb_out_file *o, kb_error *e);
/* A file written whole (kbench merge), never in part: open_whole gives the
 * temporary in o->p.f (no printer); close_whole renames it onto FILE when
 * keep is 1 and every write succeeded, and removes it otherwise, so FILE is
 * either all of the new text or as it was. A path that exists but is not a
 * regular file is written directly, as above. */
int kb_out_file_open_whole(kb_out_file *o, const char *path, kb_error *e);
int kb_out_file_close_whole(kb_out_file *o, int keep, kb_error *e);
/* On SIGINT, SIGTERM or SIGHUP before their first row, the open temporaries
 * (and the locks) are removed (in the process that opened them) and the
 * signal goes on. */
void kb_out_file_cleanup_on_signal(void);

#endif
