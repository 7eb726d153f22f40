/* status.c — the status values by name. */
#include "status.h"

#include "kbench.h" /* KB_OK */

#include <stdio.h>
#include <string.h>

static const char *const status_names[KB_NSTATUS] = {"PASS",  "FAIL",    "UNSUPPORTED", "ERROR",
                                                     "CRASH", "TIMEOUT", "UNCHECKED",   "NOT_RUN"};

const char *kb_status_name(kb_status s) {
    return status_names[s];
}

int kb_status_parse(const char *s, kb_status *st) {
    for (int i = 0; i < KB_NSTATUS; i++)
        if (strcmp(s, status_names[i]) == 0) {
            *st = (kb_status)i;
            return KB_OK;
        }
    return KB_ERR;
}

int kb_status_passing(kb_status s) {
    return s == KB_ROW_PASS || s == KB_ROW_UNCHECKED;
}

int kb_status_failing(kb_status s) {
    return s == KB_ROW_FAIL || s == KB_ROW_ERROR || s == KB_ROW_CRASH || s == KB_ROW_TIMEOUT ||
           s == KB_ROW_NOT_RUN;
}
