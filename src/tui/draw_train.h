/* draw_train.h — the learning view (L): the scaled and the unscaled run side by
 * side — weights heatmaps, loss and accuracy curves, gradient norms and the mean
 * softmax Jacobian norm per step, W_Q and W_K as they change — with the sentence
 * that compares them and the derivation of the selected gradient cell. */
#ifndef QKV_TUI_DRAW_TRAIN_H
#define QKV_TUI_DRAW_TRAIN_H

#include "app/app.h"
#include "tui/layout.h"

/* Draws the view over the whole screen below the header (reads app->learning). */
void draw_train(const struct app *app, const struct layout *l);

#endif
