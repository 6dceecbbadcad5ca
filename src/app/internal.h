/* internal.h — what the files of the app share with each other and with no one else:
 * its callers use app/app.h. Each group is the file that defines it. */
#ifndef QKV_APP_INTERNAL_H
#define QKV_APP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "app/job.h"

/* Multiply-adds above which a computation runs as a job beside the interface
 * rather than between two keys: some 20–50 ms of arithmetic. */
#define JOB_COST 5e7
/* Which way a trace job replays the history step it computes. */
enum { REPLAY_REDO, REPLAY_UNDO };
/* Longer lists of rows or columns in a sentence are counted, not named. */
#define NAMES_MAX 4
/* The keys of the editor, live and in the stage walk. */
#define K_MAIN (APP_KEYS_LIVE | APP_KEYS_STAGES)

/* Why the app asked its caller about a file: what an answer is for. */
enum {
	LOOK_DISK,        /* the file as read: its time and size */
	LOOK_BEFORE_SAVE, /* w: has it changed on disk since? */
	LOOK_SAVE_AS,     /* a typed name: a folder, a file to overwrite, or free? */
	REMOVE_DECLINED,  /* n to the recovery copy: say whether it went */
	REMOVE_SAVED,     /* the recovery copy after a save: silently */
};

/* app.c */
/* An input cell as the screen labels it: "Q[t1, d2]", "X[cat, m3]", "W_Q[m2, d1]"
 * (a head's W with its head), "W_O[h2d1, d1]". */
void app_cell_name(const struct app *app, enum qkv_grid focus, int row, int col, char *buf, size_t size);
/* Puts a sentence on the status line; error colours it as one. */
void app_say(struct app *app, bool error, const char *fmt, ...);
/* value, kept within low … high. */
int app_clamp(int value, int low, int high);
/* Keeps every cursor inside its grid after a change of shape. */
void app_clamp_cursors(struct app *app);
/* The first input of the problem's form: Q, or X. */
enum qkv_grid app_first_input(const struct app *app);
/* The first stage of the walk: the projections when there are any. */
int app_first_stage(const struct app *app);

/* marks.c */
/* Multi-head: keeps each head's weights, the concatenation and the layer output. */
int marks_keep_heads(struct app *app);
/* Multi-head: sizes and clears the marks; with mark, marks what moved since kept. */
int marks_heads(struct app *app, bool mark);
/* keep_previous for a trace about to be replaced whole (a job's): the grids are
 * exchanged with the kept ones rather than copied, so the old trace leaves with
 * the kept trace's storage. */
int marks_keep_taking(struct app *app, struct qkv_trace *old);
/* Marks every cell of the trace that differs from the kept one (same shapes only). */
void marks_mark(struct app *app, int only_row, int only_col);
/* Recomputes the trace; marks the cells that moved (when the shape is unchanged)
 * so the class sees how far a change reaches. When only the cell (input, row,
 * col) changed (row >= 0), only what it reaches is recomputed, to the same bits
 * as the whole trace. */
int marks_recompute_after(struct app *app, bool mark, enum qkv_grid input, int row, int col);
/* After a new trace (rc its code): sizes the marks, keeps the cursors inside, and
 * marks what moved against the kept trace (keep_previous), where it may differ. */
int marks_settle_trace(struct app *app, int rc, bool mark);
/* The whole trace again (marking what moved when mark). */
int marks_recompute(struct app *app, bool mark);
/* Says what an edit changed and how far it reached (the blast radius). */
void marks_describe_change(struct app *app, enum qkv_grid focus, int row, int col, double before,
			   double after);

/* compute.c */
/* Multiply-adds of a whole trace: the projections, Q Kᵀ and A V. */
double compute_trace_cost(const struct qkv_problem *p);
/* Multiply-adds of a sweep: each trial of each d_k = 1, 2, 4, … (2 d_k_max in all). */
double compute_sweep_cost(int tokens, int trials, int d_k_max);
/* Hands job to the caller to run (app_perform starts it after this event): the
 * screen says what it computes, and keys wait until EVENT_JOB_DONE. */
void compute_run(struct app *app, struct job *job);
/* The progress line; once a key has been refused, it says the keys wait. */
void compute_say_progress(struct app *app);
/* A problem whose changes run as jobs: its copy or its trace takes long. */
bool compute_problem_is_long(const struct qkv_problem *p);
/* Computes the trace of app->problem (just changed by a history step or a new
 * cell edit) as a job, and meanwhile steps the history back so the problem matches
 * the trace on the screen; replay is the step that makes the job's problem current
 * again. The job copies that problem on its thread from what the step back left:
 * the entry's snapshot, or the app's problem and the entry's cell. Returns false
 * when the job cannot be made (then nothing has moved). */
bool compute_start_trace_job(struct app *app, int replay, bool new_change, const char *done,
			     const struct history_place *place);
/* A change of the whole problem made by a job: the job copies the app's problem
 * (lent unchanged until the job is done or dropped), changes and checks the copy
 * and computes its trace; take_job then keeps the app's problem as the undo step
 * and takes the copy. Returns false when the job cannot be made. */
bool compute_start_change_job(struct app *app, job_change change, int argument, const char *done,
			      struct history_place place);
/* Events while a job runs: ticks watch it, Esc and Ctrl-C cancel it, other keys
 * and the mouse wait. Returns -1 for events handled as ever (resizes). */
int compute_job_event(struct app *app, const struct event *event);

/* edit.c */
/* Where the cursor is, for undo to put it back. */
struct history_place edit_here(const struct app *app);
/* Modified means different from the problem as loaded or saved; the wrong-way
 * demonstrations are never saved, so they do not count. */
void edit_update_dirty(struct app *app);
/* The trace of a change could not be computed (rc): the problem goes back to what
 * it was (undone, the redo forgotten) with its trace, and the status line says why. */
int edit_change_failed(struct app *app, int rc);
/* Sets one input cell, with undo, and recomputes. */
int edit_set_cell(struct app *app, enum qkv_grid focus, int row, int col, double value);
/* Runs a change of the whole problem (shape or options) with undo; done is what the
 * status line then says. A large problem is changed by a job (compute_start_change_job);
 * otherwise: snapshot first, change, then recompute; a failed change is rolled back. */
int edit_change_problem(struct app *app, job_change change, int argument,
			const char *done);
/* Starts typing into the selected cell, with first_key or the cell's value. */
void edit_start(struct app *app, int first_key);
/* Parses the typed text: a finite number within the bound, the whole text used. */
bool edit_parse_value(const char *text, double *value);
/* Enter in an edit: the typed value goes into the cell, if it is a number. */
int edit_keep(struct app *app, int key);
/* Esc or Ctrl-C in an edit: the cell keeps its value. */
int edit_cancel(struct app *app, int key);
/* Backspace or Delete in an edit: the last character typed goes; Ctrl-U: all of them. */
int edit_erase(struct app *app, int key);
/* Any other key in an edit: typed when it can be part of a number, else ignored. */
int edit_type(struct app *app, int key);
/* Adds delta to an input cell (a computed grid refuses). */
int edit_nudge(struct app *app, enum qkv_grid focus, int row, int col, double delta);
/* "undone" or "redone", and what moved back. */
void edit_say_undone(struct app *app, bool redo);
/* Undoes (or redoes) the last change, the cursor back where it was made. */
int edit_undo_redo(struct app *app, bool redo);

/* changes.c */
/* The index'th temperature of t and T's steps, index kept within them. */
double change_temperature_step(int index);
/* How many steps there are. */
int change_temperature_steps(void);
/* The next temperature of the steps below (direction < 0) or above the present one,
 * or -1 when there is none that way (τ from a file may lie outside the steps). */
int change_temperature_index(double temperature, int direction);
/* The problem changes behind the structural and option keys. */
int change_insert_token(struct qkv_problem *p, int after, const struct job_change_context *c);
/* Removes token at. */
int change_remove_token(struct qkv_problem *p, int at, const struct job_change_context *c);
/* Cross-attention: a query after query `after`, or query `at` removed. */
int change_insert_query(struct qkv_problem *p, int after, const struct job_change_context *c);
int change_remove_query(struct qkv_problem *p, int at, const struct job_change_context *c);
/* True when the cursor is on cross-attention's queries (Q, X_q, or the rows of
 * S, S', A and O) rather than its tokens (K, V, X): what o, x and z act on. */
bool walk_on_queries(const struct app *app);
/* d_k becomes d_k: columns of Q and K (or W_Q and W_K) dropped or added as zeros. */
int change_d_k(struct qkv_problem *p, int d_k, const struct job_change_context *c);
/* d_v becomes d_v. */
int change_d_v(struct qkv_problem *p, int d_v, const struct job_change_context *c);
/* The divisor: √d_k or none. */
int change_scale(struct qkv_problem *p, int scale, const struct job_change_context *c);
/* τ becomes temperatures[index]. */
int change_temperature(struct qkv_problem *p, int index, const struct job_change_context *c);
/* The mask becomes mask (none, causal, custom). */
int change_mask(struct qkv_problem *p, int mask, const struct job_change_context *c);
/* The wrong-way demonstration becomes wrong. */
int change_wrong(struct qkv_problem *p, int wrong, const struct job_change_context *c);
/* New d_k columns drawn from N(0,1) with the app's column seed, for any problem. */
int change_draw_d_k(struct qkv_problem *p, int d_k, const struct job_change_context *c);
/* Toggles the custom mask bit of cell argument = query·n + key. */
int change_mask_bit(struct qkv_problem *p, int cell, const struct job_change_context *c);
/* The seed `r` draws from next: 1 at first, back to 0 after the largest a file holds. */
uint64_t change_next_seed(const struct qkv_problem *p);
/* New N(0,1) values for Q, K and V from the seed, keeping the shape. */
int change_random(struct qkv_problem *p, int unused, const struct job_change_context *c);
/* Ties W_Q, W_K, W_V to the identity (keeping the learned ones to come back to),
 * or brings the kept ones back. */
int change_identity(struct qkv_problem *p, int tie, const struct job_change_context *c);
/* Marks the token as padding (hidden as a key from every query) or not. */
int change_padding(struct qkv_problem *p, int token, const struct job_change_context *c);
/* d_model becomes d_model: columns of X and rows of every W. */
int change_d_model(struct qkv_problem *p, int d_model, const struct job_change_context *c);

/* walk.c */
/* Moves the focused cursor, within its grid; the linked cursors follow. */
int walk_move_cursor(struct app *app, int d_row, int d_col);
/* The next (direction 1) or previous (−1) grid in Tab's order. */
int walk_cycle_focus(struct app *app, int direction);
/* Multi-head: the focus follows the grids the stage shows (6 and 7 show the heads,
 * concat, W_O and the output; 0–5 the selected head's). */
void walk_focus_stage(struct app *app);
/* "stage 6 of 7: concat — …" for the status line. */
void walk_say_stage(struct app *app);
/* The next (direction 1) or previous (−1) stage of the walk, and its name said. */
int walk_step_stage(struct app *app, int direction);
/* Multi-head: selects head (0-based); every single-head panel then shows that head,
 * and the status line says what it looks at, in numbers. */
int walk_select_head(struct app *app, int head);
/* Multi-head: selects the next head (or the previous). */
int walk_step_head(struct app *app, int direction);
/* The token the cursor is on (the selected query off the token grids). */
int walk_token(const struct app *app);
/* Puts the cursors that follow a token (the focused token grid's, the query's) on it. */
void walk_to_token(struct app *app, int token);
/* One autoplay step: the next cell of the selected row, then the next stage. */
int walk_autoplay(struct app *app);

/* prompts.c */
/* Remembers the modification time and size of the file at path as qkv last read
 * or wrote it, to notice someone else changing it meanwhile. */
/* Asks the caller for a look at, a save to or the removal of path (any earlier
 * request not yet answered is dropped). Out of memory, nothing is asked. */
void prompt_ask(struct app *app, enum app_request_type type, const char *path, int why);
/* An answer from the caller to the request (a look, a save, a removal). */
int prompt_answer_file(struct app *app, const struct event *event);
/* A figure drawn: its bytes go to the caller to write, or its reason is said. */
int prompt_take_figure(struct app *app, struct job *job);
/* y to the recovery copy: the recovered problem replaces the file's (undo goes back
 * to the file's). */
int prompt_recover_open(struct app *app, int key);
/* n to the recovery copy: it is deleted (the caller is asked to). */
int prompt_recover_delete(struct app *app, int key);
/* Esc or Ctrl-C to the recovery copy: it stays for the next time. */
int prompt_recover_later(struct app *app, int key);
/* y to a question: quit, save over the changed file, or overwrite the named one. */
int prompt_answer_yes(struct app *app, int key);
/* n, Esc or Ctrl-C to a question (Ctrl-\ too to quitting's): nothing is done. */
int prompt_answer_no(struct app *app, int key);
/* Esc or Ctrl-C while a name is typed: not saved. */
int prompt_save_as_cancel(struct app *app, int key);
/* Backspace or Delete: the name's last character (UTF-8, whole); Ctrl-U: all of it. */
int prompt_save_as_erase(struct app *app, int key);
/* Enter on a typed name: what is there is looked at first (a folder, a file). */
int prompt_save_as_enter(struct app *app, int key);
/* A key while a question is asked: its binding in the key table; a name's text. */
int prompt_key(struct app *app, int key);

/* view.c */
/* Opens view, closing the one open, or closes it when it is the one open
 * (starting and stopping what each runs: app_views). */
int view_toggle(struct app *app, enum app_view_id view);
/* Closes the view open, stopping what it runs. */
void view_close(struct app *app);
/* True for the keys that step the stages (a presentation clicker's). */
bool view_is_stage_key(int key);
/* A key the open view does not bind: what its table entry says (the editor's
 * binding, nothing, or the view closes). */
int view_others(struct app *app, int key);
/* A key outside edits and questions: the open view's binding, or view_others. */
int view_key(struct app *app, int key);

/* help.c: the help view */
/* Opening: the first page. */
int help_open(struct app *app);
/* A resize keeps the page within the pages there are; −1 (the app resizes). */
int help_event(struct app *app, const struct event *event);
/* The page PgDn Space n (or PgUp p) turns to, or −1 when there is none that way. */
int help_page_after(const struct app *app, int key);
/* PgDn Space n, PgUp p: that page, or, when there is none, the key closes the
 * help as any other does. */
int help_page_key(struct app *app, int key);

/* saturation.c */
/* The sweep's defaults. */
void saturation_init(struct app_saturation *s);
/* Opening: the sweep for the problem's tokens (at least 16). */
int saturation_open(struct app *app);
/* ↑ k / ↓ j: tokens × 2 / ÷ 2. */
int saturation_tokens(struct app *app, int key);
/* → l / ← h: trials × 2 / ÷ 2. */
int saturation_trials(struct app *app, int key);

/* online_walk.c */
/* ⌈keys / B⌉: the tiles of the walk. */
int online_walk_tiles(const struct app *app);
/* Opening: before the first tile, with a tile size fitted to n. */
int online_walk_open(struct app *app);
/* → / ← / Home / End: the walk's steps. */
int online_walk_step(struct app *app, int key);
/* + / −: the tile size × 2 / ÷ 2 (the walk starts again). */
int online_walk_tile(struct app *app, int key);
/* ↑ k / ↓ j: the query walked (the attention grid's cursor row). */
int online_walk_query(struct app *app, int key);
/* geometry.c */
/* The arrows and h j k l in the geometry view: the cursor, as in the editor. */
int geometry_move(struct app *app, int key);

/* cost.c */
/* Opening: the measurement starts (without a clock it refuses). */
int cost_open(struct app *app);
/* Closing: a measurement under way is cancelled. */
void cost_close(struct app *app);
/* Ticks ask for a slice; EVENT_MEASURED takes one in. */
int cost_event(struct app *app, const struct event *event);

/* learning.c: the view's opening and closing, and its keys */
int learning_open(struct app *app);
void learning_close(struct app *app);
/* space . n + -: runs or pauses, one step, the speed. */
int learning_run(struct app *app, int key);
/* r > <: both runs from step 0, with the same d_k, twice it or half. */
int learning_restart(struct app *app, int key);
/* Tab, the arrows and h j k l, x: the derivation's gradient matrix, cell and run. */
int learning_cell(struct app *app, int key);
/* E: the experiment shown, or the runs again. */
int learning_experiment(struct app *app, int key);

/* options.c */
/* o x: add a token after the cursor's / remove the cursor's. */
int options_tokens(struct app *app, int key);
/* ] [ } {: d_k (d_model on X) and d_v by one. */
int options_columns(struct app *app, int key);
/* > <: d_k doubled (new N(0,1) columns) or halved. */
int options_double_d_k(struct app *app, int key);
/* What a change says once made, and where the cursor then goes: the words that need
 * the new problem and its trace. The same whether the change was made between two
 * keys (edit_change_problem) or by a job (take_job). */
void options_after_change(struct app *app, job_change change, int argument);
/* s t T: the scaling on and off, the temperature down and up. */
int options_scale(struct app *app, int key);
/* m z: the next mask, the cursor's token as padding or not. */
int options_mask(struct app *app, int key);
/* W: the next wrong-way demonstration. */
int options_wrong(struct app *app, int key);
/* I: W_Q, W_K, W_V tied to the identity, or back. */
int options_identity(struct app *app, int key);
/* r: random N(0,1) values in Q, K and V. */
int options_random(struct app *app, int key);

#endif
