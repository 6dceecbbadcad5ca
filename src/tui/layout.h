/* layout.h — where each panel of the screen goes, computed from the app state and
 * the terminal size. Pure geometry: no drawing. Recomputed on resize and when
 * shapes, stage or projector mode change; the renderer reads it every frame. */
#ifndef QKV_TUI_LAYOUT_H
#define QKV_TUI_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "qkv/grid.h"
#include "qkv/error.h"

/* What a panel is. The grids it shows are the catalogue's (qkv/grid.h): an input
 * (input), Q, K or V as the projections made them (input), or a computed grid
 * (grid); the kinds below are only the roles the catalogue has no grid for. */
enum panel_kind {
	PANEL_INPUT,    /* an editable input (Q K V, or X W_Q W_K W_V): input */
	PANEL_DERIVED,  /* Q, K or V computed from projections (read-only): input */
	PANEL_GRID,     /* a computed grid: S, S', A, O, the concatenation, the layer output */
	PANEL_MIX,      /* stage 4: one query's terms a_ij · v_j, a row per key */
	PANEL_READOUT,  /* statistics beside the heatmap */
	PANEL_HEAD,     /* multi-head: another head's weights (input = the head), a small multiple */
};

/* What a panel is to the screen, in the order the layout gives them room: the
 * grid being explained (the stage's, or live the weights and the output), the
 * readout beside it, the grids it is computed from, and the inputs. A panel of
 * a lower priority is shrunk, then left out, before a higher one loses a row. */
enum panel_priority {
	PRIORITY_CURRENT,
	PRIORITY_READOUT,
	PRIORITY_CONTEXT,
	PRIORITY_INPUT,
	PRIORITY_COUNT,
};

struct panel {
	enum panel_kind kind;
	enum panel_priority priority;
	int focus;          /* app focus for the cursor and clicks; -1 for none */
	int input;          /* PANEL_INPUT / PANEL_DERIVED: the enum qkv_grid */
	enum qkv_grid grid; /* PANEL_GRID: the computed grid it shows */
	int x, y, w, h;     /* on screen, title line included */
	int rows, cols;     /* the grid's data shape */
	int label_w, cell_w; /* cell_w: as drawn (2 when compact) */
	int row_label_w;     /* one row's label; label_w is twice that with half blocks */
	int number_cell_w;   /* a cell wide enough for the numbers */
	int field_w;         /* the widest number or column label: right-aligned in a
			      * field this wide, the field centred in the cell */
	int cell_h;          /* screen lines per data row (more when the screen is tall) */
	int title_w;        /* columns the title needs */
	int shown_rows, shown_cols; /* how many fit */
	int first_row, first_col;   /* scroll offset (follows the cursor) */
	bool compact;       /* colour-only cells, two columns wide */
	bool halves;        /* compact in colour: two rows per line (half blocks) */
	int h_extra;        /* lines under a compact grid: its selected row and column */
	bool marker;        /* a line under the grid says how many rows and columns
			     * are scrolled out of sight, on which side */
	bool dropped;       /* left out (while the layout is tried; never drawn) */
	bool derived;       /* a read-only grid (computed from others) */
	bool sums;          /* weights: a row-sum column and a column-sum line */
	int places;         /* decimals of its numbers; 0: the layout's decimals */
	bool rounded;       /* even at `places` some values print alike: those are marked */
};

/* True when panel shows the computed grid `grid` of the catalogue. */
static inline bool panel_shows(const struct panel *panel, enum qkv_grid grid)
{
	return panel->kind == PANEL_GRID && panel->grid == grid;
}

/* True for S, S' and A: query × key grids (qkv_grid_is_attention). */
static inline bool panel_attention(const struct panel *panel)
{
	return panel->kind == PANEL_GRID && qkv_grid_is_attention(panel->grid);
}

/* True for S and S': the signed query × key grids. */
static inline bool panel_signed(const struct panel *panel)
{
	return panel_attention(panel) && panel->grid != QKV_GRID_WEIGHTS;
}

/* A PANEL_READOUT's input when it compares the heads (a row a head). */
#define LAYOUT_HEADS_READOUT (-2)

#define LAYOUT_MAX_PANELS (16 + QKV_MAX_HEADS)

/* The smallest screen qkv draws on. */
#define LAYOUT_MIN_WIDTH 60
#define LAYOUT_MIN_HEIGHT 16

/* What the geometry needs to know of how the screen is drawn (the palette's and
 * the glyph set's say, passed in: the layout reads no palette state). */
struct layout_look {
	bool monochrome;  /* no colour: compact grids in shades, a row a line */
	bool glyphs;      /* a shading glyph beside each weight: a column more */
	bool half_blocks; /* "▀" can be drawn: two rows of a compact colour grid a line */
};

struct layout {
	int width, height;
	bool too_small;
	bool tight;          /* narrower cells and gaps, no legends, two info lines */
	struct layout_look look; /* how the palette draws (given to layout_compute) */
	int need_width, need_height; /* the minimum size, when too small */
	struct panel panels[LAYOUT_MAX_PANELS];
	int count;
	int decimals;
	int left;            /* x of the centred block */
	int info_y, info_h;  /* formula and derivation lines: as many as they need */
	int notes_y, notes_h; /* a lesson's notes: lines a page, from notes_y */
	int notes_pages;     /* pages of notes_h lines the notes take (0: no notes) */
	int status_y;        /* the message's last line; the keys line is under it */
	int message_h;       /* lines of the message, up to status_y */
	int info_need, message_need; /* the lines those texts needed when laid out
			      * (more than they got only on a screen too small) */
	bool lesson;         /* set by the interface, kept by draw_render: a lesson is
			      * presented, so PageDown steps the lesson and n the stages */
	const char *notes;   /* set by the interface, kept by draw_render: the lesson
			      * step's notes while they are shown on this screen, or NULL */
};

/* Lays out the screen for app at width × height, drawn as look says, with room
 * for every line of the text under the grids (text.h) and for l->notes (kept).
 * Never refuses from LAYOUT_MIN_WIDTH × LAYOUT_MIN_HEIGHT up: what matters least
 * shrinks, scrolls or is left out first. */
void layout_compute(struct layout *l, const struct app *app, int width, int height,
		    const struct layout_look *look);
/* Moves each panel's scroll offset so its cursor is visible (cheap, per frame). */
void layout_follow(struct layout *l, const struct app *app);
/* The head a panel belongs to (0-based), or -1: a multi-head problem's other
 * heads' small multiples, and every single-head panel of the selected head. */
int layout_panel_head(const struct app *app, const struct panel *panel);
/* True when the panel's rows are queries (S, S', A, O, Q, X_q, the readout …),
 * false when they are tokens as keys and values (K, V, X, the mix) or numbered. */
bool layout_query_rows(const struct panel *panel);
/* The label of a token row of the panel: a query's, or a token's. */
const char *layout_row_label(const struct app *app, const struct panel *panel, int row);
/* The panel's title ("Q  queries", "2 scaled  S / 1.414", …) into buf: its
 * shortest form, which the panel's width is measured from. */
const char *layout_panel_title(const struct app *app, const struct panel *panel, char *buf, size_t size);
/* The title in its longest form that fits in `width` columns (the mix's title
 * says more when it has room), else its shortest. */
const char *layout_panel_title_within(const struct app *app, const struct panel *panel, int width, char *buf,
				      size_t size);
/* Screen lines the panel's data rows take (half of them with half blocks, cell_h
 * lines each otherwise). */
int panel_lines(const struct panel *panel);
/* The screen line of a shown data row's number and label (the middle of its cell). */
int panel_row_y(const struct panel *panel, int shown_row);
/* True when the text under the grids (the formula, the derivation, the message)
 * needs other lines than l reserved: the layout must be computed again. */
bool layout_text_changed(const struct layout *l, const struct app *app);
/* True when a and b put the same things in the same places (panels, their cells,
 * scroll offsets, info and status lines): if not, the whole screen is redrawn. */
bool layout_same(const struct layout *a, const struct layout *b);
/* The cell under screen position (x, y): returns true and sets focus, row, col,
 * and head: 1 + the head of a small multiple (focus QKV_GRID_WEIGHTS then, the
 * grid a head's weights are in), 0 for any other panel. */
bool layout_hit(const struct layout *l, int x, int y, int *focus, int *row, int *col, int *head);

#endif
