/* builtin.h — the problems compiled into the binary, so `qkv` works anywhere. */
#ifndef QKV_IO_BUILTIN_H
#define QKV_IO_BUILTIN_H

#include "qkv/problem.h"

/* Replaces p with the course's worked example, with its title and notes. */
int builtin_worked_example(struct qkv_problem *p);

#endif
