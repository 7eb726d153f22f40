/* results.h — results files as the analysis commands read them: the file
 * contract (results/result.h), rows grouped as views (views.h) and laid out
 * along an axis (along.h). */
#ifndef KB_RESULTS_H
#define KB_RESULTS_H

#include "along.h"
#include "views.h"

#endif
