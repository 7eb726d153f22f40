/* status.h — what a result row says of its pair (DESIGN.md "Correctness"):
 * the status values as the runner sets them and as files spell them
 * (status.c), and the two judgements every reader makes of one. */
#ifndef KB_STATUS_H
#define KB_STATUS_H

typedef enum kb_status {
    KB_ROW_PASS,
    KB_ROW_FAIL,
    KB_ROW_UNSUPPORTED,
    KB_ROW_ERROR,
    KB_ROW_CRASH,
    KB_ROW_TIMEOUT,
    KB_ROW_UNCHECKED, /* --no-check: timed, not judged */
    KB_ROW_NOT_RUN,   /* never ran: the context or the device was lost before its turn
                         (--resume runs it again) */
    KB_NSTATUS
} kb_status;

/* The names, ", "-separated in enum order, for messages that list them. */
#define KB_STATUS_NAMES "PASS, FAIL, UNSUPPORTED, ERROR, CRASH, TIMEOUT, UNCHECKED, NOT_RUN"

const char *kb_status_name(kb_status s);
/* KB_OK and *st set when s is one of KB_STATUS_NAMES; KB_ERR otherwise. */
int kb_status_parse(const char *s, kb_status *st);
/* PASS or UNCHECKED: the row claims a result, and its median is its time. */
int kb_status_passing(kb_status s);
/* FAIL, ERROR, CRASH, TIMEOUT or NOT_RUN (UNSUPPORTED is a refusal, not a
 * failure). */
int kb_status_failing(kb_status s);

#endif
