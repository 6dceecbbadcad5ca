/* lesson.h — a teacher's demo as a plain-text file of steps, and its replay.
 *
 * The file (docs/formats.md "Lessons", man qkv): one step per `step TITLE` line, then the
 * step's `note` lines (for the presenter) and its actions, one a line: open,
 * random, problem … end, set, stage, select, view, head and expect. `#` starts a comment
 * line; blank lines are ignored. lesson_parse checks the words; what depends on the
 * problem (a token's name, a size) is checked when the lesson is replayed.
 *
 * Step k of a lesson is what replaying every action of steps 1..k from the start
 * gives, through app_update's keys and clicks and app_init, never by writing into
 * the app's state: so going back, restarting and jumping all land on the same
 * state as going forward. No curses here. */
#ifndef QKV_PRESENT_LESSON_H
#define QKV_PRESENT_LESSON_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "qkv/grid.h"


enum lesson_act {
	ACT_OPEN_EXAMPLE,  /* open example */
	ACT_OPEN_FILE,     /* open FILE (a problem file, next to the lesson) */
	ACT_PROBLEM,       /* problem … end: a problem file's text, inline */
	ACT_RANDOM,        /* random tokens N dk D [dv V] seed S */
	ACT_SET_CELL,      /* set Q[t1,d1] = 3 */
	ACT_SET_DK,        /* set d_k = N */
	ACT_SET_SCALE,     /* set scale = on | off */
	ACT_SET_TEMPERATURE, /* set temperature = T */
	ACT_SET_MASK,      /* set mask = none | causal | custom */
	ACT_SET_WRONG,     /* set wrong = none | mask-after-softmax | column-softmax */
	ACT_SET_PROJECTIONS, /* set projections = identity | learned */
	ACT_SET_DV,        /* set d_v = N */
	ACT_SET_PADDING,   /* set padding[t3] = on | off */
	ACT_STAGE,         /* stage N | live | a stage's name */
	ACT_SELECT,        /* select A[t1,t3] */
	ACT_VIEW,          /* view saturation | describe | help | cost | learning | none */
	ACT_HEAD,          /* head 2: a multi-head problem's selected head, as H selects it */
	ACT_EXPECT_CELL,   /* expect A[t1,t3] = 0.4011 ± 0.0001 */
	ACT_EXPECT_STAGE,  /* expect stage = 3 | live */
	ACT_EXPECT_DK,     /* expect d_k = 64 */
	ACT_EXPECT_VIEW,   /* expect view = saturation */
	ACT_EXPECT_MESSAGE, /* expect message contains "…" */
	ACT_EXPECT_HEAD,   /* expect head = 2 */
	ACT_EXPECT_INFO,   /* expect info contains "…": the lines under the grids (app/info.h) */
};

struct lesson_action {
	enum lesson_act act;
	int line;           /* in the lesson file, from 1 */
	enum qkv_grid grid;
	char row[32], col[32]; /* a token's name, tN, dN, hIdJ or a number from 1 */
	double value, tolerance;
	int number;         /* d_k, stage (APP_STAGE_LIVE for live), mask, wrong, view, on/off, head from 1 */
	int tokens, d_k, d_v;
	uint64_t seed;
	char *text;         /* owned: FILE, the inline problem, the message's words */
};

struct lesson_step {
	char *title;        /* owned */
	char *notes;        /* owned, lines joined by '\n'; "" when none */
	int line;
	int first, count;   /* its actions: actions[first .. first + count) */
};

struct lesson {
	char *path;         /* owned: the file, as named */
	char *title;        /* owned: the `lesson` line, or NULL */
	struct lesson_step *steps;
	int step_count;
	struct lesson_action *actions;
	int action_count;
};

/* The largest lesson file read, in bytes (4 MiB): one byte more is refused. */
#define LESSON_MAX_BYTES (4L * 1024 * 1024)

/* Reads the lesson at path: UTF-8 text (a byte order mark at the start is
 * skipped) of at most LESSON_MAX_BYTES, in time linear in its size. Returns 0, or
 * -1 with one line in err, "FILE:LINE: what was expected" ("FILE:LINE:COLUMN: …"
 * for a byte that is not UTF-8 or a control character; l is then empty). */
int lesson_load(const char *path, struct lesson *l, char *err, size_t err_size);
/* The same from text in memory; name stands for the file in messages. */
int lesson_parse(const char *text, size_t length, const char *name, struct lesson *l, char *err,
		 size_t err_size);
void lesson_free(struct lesson *l);

/* A replay's link with a thread that waits for it: once cancel is set, the replay
 * stops before its next action (lesson_build then fails, err "cancelled");
 * actions_done counts the actions replayed so far. */
struct lesson_control {
	atomic_bool cancel;
	atomic_int actions_done;
};

/* What is carried from one replay to the next: the terminal's size, the palette,
 * and the clock the cost view measures with (NULL: a monotonic clock); control,
 * when not NULL, is watched by the replay (borrowed). */
struct lesson_look {
	int width, height, palette, palette_count;
	bool projector;
	qkv_cost_clock clock;
	void *clock_context;
	struct lesson_control *control;
};

/* Builds step `step` (0-based) into app (uninitialised on entry; app_fini it
 * after): replays every action from the first. Returns 0, or -1 with one line
 * "FILE:LINE: …" in err (app is then already finished). */
int lesson_build(const struct lesson *l, int step, const struct lesson_look *look, struct app *app,
		 char *err, size_t err_size);

/* Replays every step and checks every expect. Each failed expect is one line (report may be NULL)
 * "FILE:LINE: expected …, the screen shows …" written through report. Returns the
 * number of failed expects, or -1 with one line in err when the lesson cannot be
 * replayed (a token it names does not exist, …). *checked counts the expects. */
int lesson_check(const struct lesson *l, void (*report)(const char *line, void *data), void *data,
		 int *checked, char *err, size_t err_size);

/* What one expect finds in app: true when it holds; the value seen into seen. */
bool lesson_expect_holds(const struct lesson *l, const struct lesson_action *a, const struct app *app,
			 char *seen, size_t seen_size, char *err, size_t err_size, int *bad);

struct lesson_worker; /* a step built on a thread of its own (lesson_run.c) */

/* A lesson being presented: the step shown, and a step number being typed.
 * lesson_update takes the events the interface would give app_update: PageDown,
 * PageUp, Home, End and a number then Enter move through the steps (each a fresh
 * replay); everything else goes to app_update, so the class may explore, and the
 * next step starts again from the lesson's own state. In the background (the
 * interface's way), a replay that takes more than a moment runs on a thread with
 * its own copy of the lesson: the lesson bar shows its progress, ticks take it in
 * once built, Esc or Ctrl-C cancels it (the step shown stays), other keys wait. */
struct lesson_run {
	const struct lesson *lesson; /* borrowed */
	int step;                    /* 0-based */
	bool explored;               /* something was changed by hand during this step */
	char jump[8];                /* digits typed towards a step number */
	char said[320];              /* what the lesson bar adds: "" or a sentence */
	int moves;                   /* counts every change of step (for presenter screens) */
	int page;                    /* the page of the step's notes shown (0-based) */
	int pages;                   /* how many pages the notes take on the screen */
	bool background;             /* steps are built on a thread (lesson_run_background) */
	struct lesson_worker *worker; /* the step being built, or NULL */
	int building;                /* the step it builds (0-based) */
	int building_actions;        /* the actions it replays in all */
	int64_t building_since_ms;
	bool building_refused;       /* a key came meanwhile (the progress line says keys wait) */
};

/* Builds step 0 into app (uninitialised on entry). 0, or -1 with one line in err. */
int lesson_run_start(struct lesson_run *run, const struct lesson *l, const struct lesson_look *look,
		     struct app *app, char *err, size_t err_size);
/* From now on, steps are built beside the caller (see struct lesson_run). */
void lesson_run_background(struct lesson_run *run);
/* True while a step is being built beside the caller. */
bool lesson_run_busy(const struct lesson_run *run);
/* Lets go of a step being built (the thread frees it when it stops). */
void lesson_run_fini(struct lesson_run *run);
/* Puts sentence on the lesson bar until the next step (where the notes went). */
void lesson_run_tell(struct lesson_run *run, const char *sentence);
/* Applies one event to the lesson or, through app_update, to app. Returns the
 * enum app_redraw flags. */
int lesson_update(struct lesson_run *run, struct app *app, const struct event *event);
/* The interface says how many pages the step's notes take on its screen (the
 * layout's count, 0 when they are not shown); the page shown stays within them.
 * PageDown then turns the notes' pages before it goes to the next step, and
 * PageUp turns them back before it goes to the step before. */
void lesson_notes_pages(struct lesson_run *run, int pages);
/* Goes to step (0-based, clamped) from the lesson's own state; redraw flags. */
int lesson_goto(struct lesson_run *run, struct app *app, int step);

#endif
