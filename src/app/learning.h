/* learning.h — the state of the learning view (L, or `qkv --train TASK`): two runs
 * of the same task, seed and d_k, one with the scores divided by √d_k and one
 * without, stepped between input (a few updates per tick, never a long block).
 * Changed only through app_update; no curses. */
#ifndef QKV_APP_LEARNING_H
#define QKV_APP_LEARNING_H

#include <stdbool.h>
#include <stddef.h>

#include "qkv/train.h"

struct app;
struct event;

#define LEARNING_SCALED 0
#define LEARNING_UNSCALED 1

struct app_learning {
	struct qkv_train_config config; /* config.scaled is ignored: both runs exist */
	struct qkv_train runs[2];       /* LEARNING_SCALED, LEARNING_UNSCALED */
	bool running;
	int steps_per_tick;             /* updates of each run per tick while running */
	int side;                       /* the run whose gradient derivation is shown */
	enum qkv_weight weight;         /* the gradient matrix of that derivation */
	int row, col;                   /* its cell */
	/* The experiment (E): steps to 90% over d_k = 4 … 256, run a little per tick;
	 * with another loss or optimiser than MSE + SGD, that sweep too, to compare. */
	bool sweep_shown;
	bool sweep_started;
	struct qkv_train_sweep_state sweep, baseline;
	bool has_baseline;
};

#define LEARNING_SWEEP_SEEDS 5

/* True when the experiment (and its baseline, if any) has finished. */
bool app_learning_sweep_done(const struct app_learning *l);

/* Opens the learning view on config c (NULL: keep the runs there are, or start
 * the default lookup task). Returns 0 or a QKV_E* code (the view stays closed). */
int app_learning_open(struct app *app, const struct qkv_train_config *c);
/* Frees the learning state (app_fini calls it). */
void app_learning_free(struct app *app);
/* An event while the learning view is open (its hook in the table of views; its
 * keys are rows of the key table): the redraw flags, or −1 when the event is not
 * the view's (the app handles it as usual). */
int app_learning_event(struct app *app, const struct event *event);

/* The sentence under the two runs, from their numbers: where each stands, both
 * runs' gradient flow (mean ‖J‖) at the step shown and which passes how many times
 * less, then the same at step 0 and the first step where they were 10× apart. */
int app_learning_summary(const struct app_learning *l, char *buf, size_t size);

#endif
