/* input.h — terminal input into app events: the only code that knows KEY_* and
 * mouse events. */
#ifndef QKV_TUI_INPUT_H
#define QKV_TUI_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "app/app.h"
#include "tui/layout.h"

/* Turns one wget_wch result (rc OK or KEY_CODE_YES, and its code) into an event
 * at time now_ms; clicks and the wheel are resolved through the layout. Returns
 * false when the input means nothing to qkv (the event is then unset). */
bool input_translate(int rc, unsigned int code, const struct layout *l, int64_t now_ms,
		     struct event *event);

#endif
