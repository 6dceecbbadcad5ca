/* app.h — the interactive state of qkv and the one function that changes it.
 * app_update(app, event) is the only way the state moves: the interface, a test
 * or a script of keys feed it the same events. It returns what must be redrawn.
 * No curses here: keys arrive already translated into enum app_key values. */
#ifndef QKV_APP_H
#define QKV_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "app/cost.h"
#include "app/history.h"
#include "app/job.h"
#include "app/learning.h"
#include "app/online_walk.h"
#include "app/saturation.h"
#include "io/figure/figure.h"
#include "qkv/attention.h"
#include "qkv/cost.h"
#include "qkv/heads.h"
#include "qkv/problem.h"
#include "qkv/sweep.h"

/* Keys that are not printable characters; printable keys are their code points. */
enum app_key {
	APP_KEY_UP = 0x110000, /* above every Unicode code point */
	APP_KEY_DOWN,
	APP_KEY_LEFT,
	APP_KEY_RIGHT,
	APP_KEY_PAGE_UP,
	APP_KEY_PAGE_DOWN,
	APP_KEY_HOME,
	APP_KEY_END,
	APP_KEY_ENTER,
	APP_KEY_ESCAPE,
	APP_KEY_BACKSPACE,
	APP_KEY_DELETE,
	APP_KEY_TAB,
	APP_KEY_BACKTAB,
	APP_KEY_CTRL_R,
	APP_KEY_CTRL_U,
	APP_KEY_CTRL_L,
	APP_KEY_CTRL_C,         /* Ctrl-C (and SIGINT): like q */
	APP_KEY_CTRL_BACKSLASH, /* Ctrl-\: like q */
	APP_KEY_CTRL_S,         /* Ctrl-S: no flow control here; says w saves */
};

enum event_type {
	EVENT_KEY,    /* key */
	EVENT_CLICK,  /* focus, row, col: a cell was clicked */
	EVENT_WHEEL,  /* focus, row, col, delta (+1 up, −1 down): nudge that cell */
	EVENT_RESIZE, /* width, height */
	EVENT_TICK,   /* now_ms has advanced (marks fade, autoplay steps, training runs) */
	EVENT_TRAIN_STEP,  /* the learning view: one update, then pause */
	EVENT_TRAIN_RUN,   /* the learning view: run on ticks */
	EVENT_TRAIN_PAUSE, /* the learning view: stop running */
	/* The answers to the app's requests (struct app_request), from its caller: */
	EVENT_LOOKED,      /* file: what is at the request's path */
	EVENT_SAVED,       /* file: the problem is saved there (and what is there now) */
	EVENT_SAVE_FAILED, /* error, text: it could not be saved */
	EVENT_REMOVED,     /* error: the file is deleted (0) or why not */
	/* What the caller saw of the work the app handed it (app_perform, files.h): */
	EVENT_JOB_DONE,    /* the app's job (struct app.job) has ended: take it in */
	EVENT_MEASURED,    /* error: the cost view's measurement took one slice; job_slice's code */
};

/* What is at a path, as the caller found it (EVENT_LOOKED, EVENT_SAVED). */
struct app_file {
	bool exists, is_dir;
	int64_t mtime_ns, size;
};

struct event {
	enum event_type type;
	int key;          /* EVENT_KEY: a code point or an enum app_key */
	int focus;        /* EVENT_CLICK / EVENT_WHEEL: an enum qkv_grid */
	int row, col;
	int delta;
	int width, height;
	int64_t now_ms;   /* every event: a monotonic clock in milliseconds */
	bool pasted;      /* EVENT_KEY: the key came from a paste (bracketed paste), so
			   * it is text for a cell edit or a file name and never a command */
	int head;         /* EVENT_CLICK on QKV_GRID_WEIGHTS: 1 + the head whose small
			   * multiple was clicked, which becomes the selected head (as H
			   * selects it); 0 for the selected head's own grids */
	struct app_file file; /* EVENT_LOOKED, EVENT_SAVED */
	int error;            /* EVENT_SAVE_FAILED, EVENT_REMOVED: an errno value, 0 for none */
	const char *text;     /* EVENT_SAVE_FAILED: the saver's sentence (or NULL) */
};

/* What the app asks its caller to do with files: app_update itself never touches
 * one. The caller performs the request and answers with its event; the answer
 * clears the request (or makes the next one). app_perform (app/files.h) is the
 * caller's helper that does both. */
enum app_request_type {
	APP_REQUEST_NONE,
	APP_REQUEST_LOOK,   /* what is at path? EVENT_LOOKED */
	APP_REQUEST_SAVE,   /* save the problem to path: EVENT_SAVED or EVENT_SAVE_FAILED */
	APP_REQUEST_REMOVE, /* delete path (a recovery copy): EVENT_REMOVED */
	APP_REQUEST_EXPORT, /* write E's figure (bytes, drawn by a job) to path: EVENT_SAVED or
			     * EVENT_SAVE_FAILED */
};

struct app_request {
	enum app_request_type type;
	char *path;  /* owned */
	int why;     /* the app's own note of what the answer is for */
	char *bytes; /* APP_REQUEST_EXPORT: the figure's bytes, owned; length of them */
	size_t length;
};

/* What has the cursor is a grid of the catalogue (enum qkv_grid): an input, the
 * n×n attention grid (QKV_GRID_WEIGHTS, whose cursor S and S' share), the output
 * (and mix) grid, and with heads the concatenation and the layer output. */

/* The projections `I` ties to the identity and keeps: W_Q, W_K, W_V. */
#define APP_PROJECTIONS (QKV_GRID_W_V - QKV_GRID_W_Q + 1)

/* The view of the stages: everything at once, or one stage at a time. */
#define APP_STAGE_LIVE (-1)
/* Multi-head problems walk two stages more, after the selected head's five. */
#define APP_STAGE_CONCAT 6 /* the heads' outputs side by side */
#define APP_STAGE_LAYER 7  /* the output projection Concat · W_O */

/* The views over the editor, one open at a time: the index of the table of views
 * (app_views, app/view.h), which says how each opens, closes, takes its events and
 * keys, and of the interface's table of their drawings. Lessons name them in
 * this order (app_views[].name). */
enum app_view_id {
	VIEW_NONE,       /* the editor alone */
	VIEW_HELP,       /* ?: the key table */
	VIEW_DESCRIBE,   /* D: the weights in words */
	VIEW_SATURATION, /* S: the d_k sweep (app/saturation.h) */
	VIEW_COST,       /* C: the price of n² (app/cost.h) */
	VIEW_LEARNING,   /* L: training, scaled against unscaled (app/learning.h) */
	VIEW_ONLINE,     /* F: the online softmax, tile by tile (app/online_walk.h) */
	VIEW_GEOMETRY,   /* G: queries and keys as arrows (app/geometry.c) */
	VIEW_COUNT,
};

/* The help's state: the page shown (app_help_layout), 0 = the first. */
struct app_help_view {
	int page;
};

enum app_prompt {
	PROMPT_NONE,
	PROMPT_QUIT,      /* unsaved changes: quit anyway? y/n */
	PROMPT_SAVE_AS,   /* typing a file name */
	PROMPT_OVERWRITE, /* the named file exists: overwrite? y/n */
	PROMPT_RECOVER,   /* a recovery copy exists: open it? y/n/Esc */
	PROMPT_CHANGED,   /* the file changed on disk since it was read: save over it? y/n */
};

/* Flags returned by app_update: which parts of the screen changed. */
enum app_redraw {
	REDRAW_NONE = 0,
	REDRAW_INPUTS = 1 << 0,    /* Q K V / X W grids */
	REDRAW_ATTENTION = 1 << 1, /* scores, scaled, weights grids and legend */
	REDRAW_OUTPUT = 1 << 2,    /* mix and output grids */
	REDRAW_INFO = 1 << 3,      /* formula, derivation, statistics readout */
	REDRAW_STATUS = 1 << 4,    /* title bar, stage bar, status line, prompt */
	REDRAW_OVERLAY = 1 << 5,   /* the view open over the editor */
	REDRAW_LAYOUT = 1 << 6,    /* sizes changed: lay the screen out again */
	REDRAW_ALL = 0x7f,
};

#define APP_EDIT_MAX 64
#define APP_MESSAGE_MAX 512
#define APP_MARK_MS 1500   /* how long changed cells stay marked */

struct app_cursor {
	int row, col;
};

struct app {
	struct qkv_problem problem;
	struct qkv_trace trace;     /* always computed from problem (multi-head: the selected head's) */
	int head;                   /* multi-head: the selected head, 0-based */
	struct qkv_heads_trace heads; /* multi-head: every head, the concatenation, the output */
	/* Multi-head blast radius: each head's weights, the concatenation and the layer
	 * output before the last change, and 1 where they moved. */
	struct qkv_matrix *previous_head_weights; /* heads_capacity entries */
	struct qkv_matrix previous_concat, previous_layer;
	unsigned char *moved_head_weights; /* h · n · n */
	unsigned char *moved_concat, *moved_layer;
	size_t moved_head_capacity, moved_concat_capacity, moved_layer_capacity;
	int heads_capacity;
	bool previous_heads_valid;
	char *path;                 /* file being edited (owned), NULL if none */
	bool disk_known;            /* the file's time and size as qkv last read or wrote it */
	int64_t disk_mtime_ns, disk_size;
	bool dirty;                 /* the problem differs from `saved` (the wrong-way demo aside) */
	struct qkv_problem saved;   /* the problem as loaded or last saved */
	uint64_t column_seed;       /* `>` draws new d_k columns from N(0,1) with this seed */
	long actions;               /* keys, clicks and wheel nudges handled so far */
	/* The run of d_k changes the last action continued (a lesson's `set d_k` is
	 * several presses of > or ]): the status line counts the whole run. */
	struct app_d_k_run {
		long action;        /* the action that made its last change */
		int from, to;       /* d_k before the run and after its last change */
		int drawn, zeros, dropped; /* columns drawn from N(0,1), added as zeros, dropped */
	} d_k_run;
	bool quit;                  /* the interface should end */
	struct app_request request; /* a file to look at, save or delete, for the caller */

	enum qkv_grid focus;
	struct app_cursor cursor[QKV_GRID_COUNT];
	int stage;                  /* APP_STAGE_LIVE or an enum qkv_stage */

	bool editing;               /* typing a value into the selected cell */
	char edit[APP_EDIT_MAX];    /* the text typed so far */
	double step;                /* what + and − add and subtract */

	enum app_prompt prompt;
	char answer[APP_EDIT_MAX * 4]; /* PROMPT_SAVE_AS: the name typed so far */
	bool exporting;             /* the name is E's figure (.svg .pdf .png), not w's save */
	enum app_view_id view;      /* the view open over the editor, VIEW_NONE for none */

	char message[APP_MESSAGE_MAX]; /* the status line's message, "" for none */
	bool message_is_error;

	/* Blast radius: 1 where the value moved in the last change, until mark_until.
	 * A computed cell moved when its value differs from the trace before the change,
	 * or when it became masked or unmasked (a cell masked before and after shows the
	 * same "—" and has not moved). */
	unsigned char *moved_inputs;   /* the edited input matrix, by cell (rows × cols) */
	enum qkv_grid moved_input;
	unsigned char *moved[QKV_GRID_COUNT]; /* each grid of the trace, by cell */
	size_t moved_capacity[QKV_GRID_COUNT];
	size_t moved_inputs_capacity;
	int64_t mark_until_ms;
	struct qkv_matrix previous[QKV_GRID_COUNT]; /* the trace before the last change */
	unsigned char *previous_masked;             /* its m × n mask */
	size_t previous_masked_capacity;
	struct qkv_row_stats *previous_rows;        /* its per-row statistics */
	int previous_rows_capacity;
	int previous_m, previous_n;                 /* its queries and keys */
	bool previous_valid;
	/* Where previous may differ from the trace: row ≥ 0, only that row of S, S', A
	 * and O (a query's edit); col ≥ 0, only that column of O (a value's edit);
	 * both −1, anywhere. */
	int previous_differs_row, previous_differs_col;

	bool autoplay;
	double pace_s;              /* seconds per autoplay step */
	int64_t next_step_ms;

	int palette;                /* index into the interface's palettes */
	int palette_count;
	bool projector;
	bool auto_range;            /* weights ramp over the row's range, not 0–1 */
	bool show_stats;            /* the statistics readout beside the heatmap */

	/* Each view's own state (app/view.h lists the views). */
	struct app_help_view help;         /* ? */
	struct app_saturation saturation;  /* S */
	struct app_cost_view cost;         /* C */
	struct app_learning *learning;     /* L, or NULL until it is first opened */
	struct app_online_walk online;     /* F */

	/* A recovery copy of the file's unsaved changes from an earlier session. */
	char *recovery;               /* its name (owned), NULL when there is none */
	struct qkv_problem recovered; /* what it holds, while PROMPT_RECOVER asks */

	/* The projections as they were before `I` tied them to the identity. */
	struct qkv_matrix untied[APP_PROJECTIONS];

	/* A computation running beside the interface (a large trace or sweep): the
	 * screen keeps the state before it until it is taken in; Esc cancels it. The
	 * app only makes it: its caller starts it and says when it has ended
	 * (app_perform, EVENT_JOB_DONE). */
	struct job *job;            /* NULL when nothing runs */
	bool jobs_always;           /* a test's: every change runs as a job, however small */
	int job_replay;             /* the history step that makes its problem current */
	bool job_new_change;        /* a new change: cancelling forgets it */
	bool job_is_change;         /* a change of the whole problem, made by the job on its copy */
	job_change job_change;      /* which change (a tie keeps the job's untied W's) */
	int job_argument;
	struct history_place job_change_place; /* where the change was asked for */
	struct qkv_problem spare;   /* a finished job's copy: storage for the next copy */
	bool job_has_place;         /* undo/redo: put the cursor at job_place */
	struct history_place job_place;
	bool job_has_cell;          /* an edit of job_cell: marked once taken in */
	struct history_place job_cell;
	char job_what[128];         /* what it computes, for the progress line */
	char job_message[APP_MESSAGE_MAX]; /* the message once it is taken in */
	int64_t job_started_ms;
	bool job_refused;           /* a key came while it ran (the progress line says keys wait) */
	int job_tokens, job_trials; /* a sweep: the parameters to go back to */

	int width, height;          /* the terminal's size, from EVENT_RESIZE */
	struct history history;
	int64_t now_ms;
};

/* Autoplay's seconds per stage when --pace does not say. */
#define APP_PACE_S 1.5

/* How the interface starts: what the person asked for on the command line and
 * what the terminal can do. A member left 0 (or NULL) takes its default. */
struct app_options {
	int palette_count;       /* the interface's palettes (c cycles them); 0: one */
	int palette;             /* the first one's index */
	bool projector;          /* start in projector mode */
	double pace_s;           /* autoplay seconds per step; 0: APP_PACE_S */
	qkv_cost_clock clock;    /* the cost view's clock; NULL: the view refuses */
	void *clock_context;
	const char *message;     /* the status line's first message (after the notes) */
	const struct qkv_train_config *train; /* open on the learning view (qkv --train), or NULL */
};

/* Takes over p (app_fini frees it), computes its trace, focuses the first input.
 * path (copied, may be NULL) is where `w` saves; options may be NULL (every
 * default). Returns 0 or a QKV_E* code (p is still taken over). */
int app_init(struct app *app, struct qkv_problem *p, const char *path, const struct app_options *options);
/* The same with p's trace already computed (taken over: trace is left empty). */
int app_init_traced(struct app *app, struct qkv_problem *p, struct qkv_trace *trace, const char *path,
		    const struct app_options *options);
/* True when p's trace takes long enough that the interface computes it beside
 * itself (the first one included, before app_init_traced). */
bool app_trace_is_long(const struct qkv_problem *p);
/* Offers the recovery copy named where, holding recovered (taken over), with
 * PROMPT_RECOVER: y opens it (unsaved, undo goes back to the file), n deletes it,
 * Esc keeps it for later. Returns 0 or QKV_ENOMEM. */
int app_offer_recovery(struct app *app, struct qkv_problem *recovered, const char *where);
/* Says on the status line, without asking, that unsaved changes from an earlier
 * session are kept in where and that `qkv --recover FILE` offers them; before the
 * first event, as app_offer_recovery. */
void app_recovery_kept(struct app *app, const char *where);
/* Says on the status line that the recovery copy found does not read (why: the
 * loader's sentence), before the first event, as app_offer_recovery asks. */
void app_recovery_unreadable(struct app *app, const char *why);
/* Frees everything the app owns. */
void app_fini(struct app *app);

/* Clock milliseconds the cost view measures for at most per tick (one slice). */
#define APP_COST_SLICE_MS 60.0
/* The cost view's largest n: past the editor's 1,024 tokens, four times over. */
#define APP_COST_LAST_N 4096

/* True while a computation runs beside the interface (the interface then asks
 * for ticks often, so it is taken in soon after it ends). */
bool app_busy(const struct app *app);

/* Applies one event; returns the enum app_redraw flags of what changed. */
int app_update(struct app *app, const struct event *event);

/* Where a key binding works: one bit per state of the screen (app_key_context). */
enum app_key_context {
	APP_KEYS_LIVE = 1 << 0,       /* the editor, every stage live */
	APP_KEYS_STAGES = 1 << 1,     /* one stage at a time */
	APP_KEYS_SATURATION = 1 << 2, /* the saturation view (its keys before the others) */
	APP_KEYS_EDIT = 1 << 3,       /* typing a value into a cell */
	APP_KEYS_ANSWER = 1 << 4,     /* a y / n question */
	APP_KEYS_SAVE_AS = 1 << 5,    /* typing a file name */
	APP_KEYS_RECOVER = 1 << 6,    /* the question about a recovery copy */
	APP_KEYS_LEARNING = 1 << 7,   /* the learning view (its keys are its own) */
	APP_KEYS_LESSON = 1 << 8,     /* a lesson presented: its own keys, before the others */
	APP_KEYS_HELP = 1 << 9,       /* the help open: its paging keys (any other key closes it) */
	APP_KEYS_GEOMETRY = 1 << 10,  /* the geometry view (its arrows, then the editor's keys) */
	APP_KEYS_ONLINE = 1 << 11,    /* the online softmax walk (its steps, then the editor's keys) */
};

#define APP_BINDING_KEYS 16 /* keys per binding at most */
#define APP_KEY_NAME_MAX 13 /* columns of a binding's name in the help */
#define APP_KEY_NOTE_MAX 22 /* columns of its note: two columns of both fit 80×24 */

/* One row of the key table: the one place a key is bound and documented. */
struct app_binding {
	int keys[APP_BINDING_KEYS]; /* code points or enum app_key; 0 ends the list */
	unsigned context;           /* enum app_key_context bits where they work */
	const char *name;           /* the keys as the help writes them: "PgDn Space n" */
	const char *note;           /* what they do, in the help; NULL: not in the help */
	const char *hint;           /* the status line's words, keys included: "PgDn next stage" */
	unsigned hint_context;      /* where the status line shows the hint */
	int (*handler)(struct app *app, int key); /* NULL: the edit or the question takes the key */
	const char *manual;         /* the manual page's words when longer than the note */
	const char *group;          /* the help's heading it is listed under (NULL: not in the help) */
	int view;                   /* an enum app_view_id: this row is where that view's own row
				     * (its toggle, in the table of views) stands; every other member 0 */
};

extern const struct app_binding app_bindings[];
extern const int app_binding_count;

struct app_view;

/* The key table as the app reads it: app_bindings' rows in order, each view's own
 * row (app_views[].toggle) where a row of app_bindings places it, and the rows of
 * the views no row places after them, in the views' order. */
#define APP_KEY_ROWS_MAX 128
struct app_keys {
	const struct app_binding *rows[APP_KEY_ROWS_MAX];
	int count;
};

/* Fills keys from app_bindings and the view_count views (app_views and
 * VIEW_COUNT for the app's own). */
void app_keys_gather(struct app_keys *keys, const struct app_view *views, int view_count);
/* The app's key table: app_bindings and app_views. */
void app_keys_default(struct app_keys *keys);

/* The context whose keys are in reach now (one enum app_key_context bit). */
unsigned app_key_context(const struct app *app);
/* The binding with a handler for key in any of the context bits, or NULL. */
const struct app_binding *app_binding_find(unsigned context, int key);
/* The stage E's figure draws (the weights in the live view). */
int app_figure_stage(const struct app *app);
/* E's figure's options: that stage, the palette on screen, the selected cell. */
void app_figure_options(const struct app *app, struct figure_options *o);
/* The status line's hints for the keys in reach now: " Tab matrix · 0-9 edit · …". */
void app_key_hints(const struct app *app, char *buf, size_t size);
/* The same for the bindings hinted in context (APP_KEYS_LESSON: the lesson's line). */
void app_context_hints(const struct app *app, unsigned context, char *buf, size_t size);
/* The same from the rows of keys. */
void app_keys_hints(const struct app_keys *keys, const struct app *app, unsigned context, char *buf,
		    size_t size);
/* True when key is one of the keys of a binding in context, handled here or not. */
bool app_key_bound(unsigned context, int key);

/* The input matrix behind an input focus, or NULL for QKV_GRID_WEIGHTS/OUTPUT. */
const struct qkv_matrix *app_focus_matrix(const struct app *app, enum qkv_grid focus);
/* Rows and columns of the grid behind any focus. */
void app_focus_shape(const struct app *app, enum qkv_grid focus, int *rows, int *cols);
/* "Q", "K", "V", "X", "W_Q", "W_K", "W_V", "attention", "output". */
const char *app_focus_name(enum qkv_grid focus);
/* True for the editable inputs of the problem's form. */
bool app_focus_is_input(const struct app *app, enum qkv_grid focus);

/* The selected query, key and output column the derivations are about. */
int app_query(const struct app *app);
int app_key(const struct app *app);
int app_value_col(const struct app *app);
/* True when the stage may be shown: live view, or stage <= the current stage. */
bool app_stage_visible(const struct app *app, enum qkv_stage stage);
/* The stage whose derivation the info line shows. */
enum qkv_stage app_derived_stage(const struct app *app);

/* Multi-head: the matrix of an input for the selected head (W_Q, W_K, W_V are
 * per head, X and W_O shared); otherwise the problem's. NULL when absent. */
const struct qkv_matrix *app_input(const struct app *app, enum qkv_grid input);
/* The number of stages the walk goes through: 5, or 7 for a multi-head problem. */
int app_last_stage(const struct app *app);
/* Multi-head: true when head's weight (query, key), the concatenation's or the
 * layer output's cell moved in the last change (and is still marked). */
bool app_moved_head_weight(const struct app *app, int head, int query, int key);
bool app_moved_concat(const struct app *app, int row, int col);
bool app_moved_layer(const struct app *app, int row, int col);

/* True when W_Q, W_K and W_V are all the identity (Q = K = V = X). */
bool app_projections_tied(const struct app *app);

/* True when the cell of the trace moved in the last change and is still marked. */
bool app_moved(const struct app *app, enum qkv_grid grid, int row, int col);
bool app_moved_score(const struct app *app, int query, int key);
/* True when the mix term a_qk · v_kc moved in the last change (and is still marked). */
bool app_moved_mix(const struct app *app, int query, int key, int col);
bool app_moved_output(const struct app *app, int query, int col);
bool app_moved_input(const struct app *app, enum qkv_grid input, int row, int col);
/* True when a figure of the readout's row (max, H/lnN, eff, ‖J‖) moved in the last change. */
bool app_moved_readout(const struct app *app, int row);
/* The last change's reach in words, read from the marks: "moves score row t1 and,
 * through softmax's normalisation, all of weights row t1, and output row t1". */
void app_reach_words(const struct app *app, char *buf, size_t size);

#endif
