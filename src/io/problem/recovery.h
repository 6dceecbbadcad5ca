/* recovery.h — the copy of unsaved changes qkv writes when it must end without
 * asking (SIGTERM, SIGHUP, the terminal gone), and finds again the next time the
 * file is opened. Each copy is a new private file in $XDG_STATE_HOME/qkv
 * (~/.local/state/qkv), never beside the file (docs/DESIGN.md, "Recovery
 * copies"). */
#ifndef QKV_IO_RECOVERY_H
#define QKV_IO_RECOVERY_H

#include <stdbool.h>
#include <stddef.h>

#include "qkv/problem.h"

/* Writes p as the recovery copy of path (NULL: a problem without a file). Returns
 * 0 with the copy's name in where, or -1 with one line in err. */
int recovery_write(const char *path, const struct qkv_problem *p, char *where, size_t where_size,
		   char *err, size_t err_size);
/* True when a recovery copy of path exists (a regular file of this user's in the
 * private folder); the newest one's name goes into where. */
bool recovery_find(const char *path, char *where, size_t where_size);

#endif
