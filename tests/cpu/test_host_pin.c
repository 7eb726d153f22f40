/* test_host_pin.c — the OpenMP threads of host variants are pinned one per
 * CPU of the process's mask (harness/run/measure_host.c), unless the user's
 * OMP_PROC_BIND / OMP_PLACES / GOMP_CPU_AFFINITY places them. */
#define _GNU_SOURCE
#include "kbtest.h"

#include "run/measure.h"

#include <omp.h>
#include <sched.h>
#include <stdlib.h>

KB_TEST(users_placement_is_left_alone) {
    setenv("OMP_PROC_BIND", "false", 1);
    KB_EXPECT(!kb_host_pinned());
    unsetenv("OMP_PROC_BIND");
    setenv("GOMP_CPU_AFFINITY", "0", 1);
    KB_EXPECT(!kb_host_pinned());
    unsetenv("GOMP_CPU_AFFINITY");
    unsetenv("OMP_PLACES");
    KB_EXPECT(kb_host_pinned());
}

KB_TEST(every_thread_runs_on_one_cpu_of_the_mask) {
    unsetenv("OMP_PROC_BIND");
    unsetenv("OMP_PLACES");
    unsetenv("GOMP_CPU_AFFINITY");
    cpu_set_t allowed;
    KB_EXPECT(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    int threads = omp_get_max_threads();
    KB_EXPECT(kb_host_pin_threads() == threads);
    KB_EXPECT(kb_host_pin_threads() == threads); /* once per process */
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        cpu_set_t mine;
        bad += sched_getaffinity(0, sizeof mine, &mine) != 0 || CPU_COUNT(&mine) != 1;
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &mine) && !CPU_ISSET(c, &allowed)) bad++;
    }
    KB_EXPECT(bad == 0);
}
