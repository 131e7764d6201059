/*
 * The checks of test_capi.c for one type: included with F (float or double), SFX (f32 or f64)
 * and TYPE_NAME defined; API(name) is slabclip_name_SFX and T(name) this file's name_SFX.
 */

/* A new buffer of n values of F. */
static F *T(floats)(size_t n) {
    return xmalloc(n * sizeof(F));
}

/* The grid pieces of one grid, through the capacity protocol, columns and rows. */
static void T(check_grid)(const char *prefix, const char *name, void *segs[4], size_t n,
                          const F *rect, size_t nx, size_t ny, int half_open, int touches) {
    char label[64];
    API(grid) *grid = NULL;
    int status = API(grid_new)(rect[0], rect[1], rect[2], rect[3], nx, ny, half_open, touches,
                               &grid);
    if (status != SLABCLIP_OK) {
        check(0, "%s %s: slabclip_grid_new: %s", prefix, name, slabclip_last_error_message());
        return;
    }
    /* The first call asks for the count. */
    size_t count = (size_t)-1;
    status = API(grid_pieces)(grid, segs[0], segs[1], segs[2], segs[3], n, 0, NULL, NULL, NULL,
                              NULL, NULL, NULL, NULL, NULL, NULL, NULL, &count);
    int ok = count != (size_t)-1
             && status == (count == 0 ? SLABCLIP_OK : SLABCLIP_ERR_CAPACITY);
    int64_t *seg = xmalloc(count * 8), *ix = xmalloc(count * 8), *iy = xmalloc(count * 8);
    F *te = T(floats)(count), *tx = T(floats)(count);
    uint8_t *cls = xmalloc(count);
    F *p[4] = {T(floats)(count), T(floats)(count), T(floats)(count), T(floats)(count)};
    /* One element short: CAPACITY again, the count, and nothing written. */
    if (count > 0) {
        memset(cls, 0xAB, count);
        size_t again = 0;
        status = API(grid_pieces)(grid, segs[0], segs[1], segs[2], segs[3], n, count - 1, NULL,
                                  NULL, NULL, NULL, NULL, cls, NULL, NULL, NULL, NULL, &again);
        ok &= status == SLABCLIP_ERR_CAPACITY && again == count && cls[0] == 0xAB
              && cls[count - 1] == 0xAB;
    }
    size_t got = 0;
    status = API(grid_pieces)(grid, segs[0], segs[1], segs[2], segs[3], n, count, seg, ix, iy, te,
                              tx, cls, p[0], p[1], p[2], p[3], &got);
    ok &= status == SLABCLIP_OK && got == count;
    snprintf(label, sizeof label, "%s_segment", name);
    ok &= same(prefix, label, seg, count * 8);
    snprintf(label, sizeof label, "%s_ix", name);
    ok &= same(prefix, label, ix, count * 8);
    snprintf(label, sizeof label, "%s_iy", name);
    ok &= same(prefix, label, iy, count * 8);
    snprintf(label, sizeof label, "%s_t_entry", name);
    ok &= same(prefix, label, te, count * sizeof(F));
    snprintf(label, sizeof label, "%s_t_exit", name);
    ok &= same(prefix, label, tx, count * sizeof(F));
    snprintf(label, sizeof label, "%s_class", name);
    ok &= same(prefix, label, cls, count);
    const char *cols[4] = {"x0", "y0", "x1", "y1"};
    for (int c = 0; c < 4; c++) {
        snprintf(label, sizeof label, "%s_piece_%s", name, cols[c]);
        ok &= same(prefix, label, p[c], count * sizeof(F));
    }
    check(ok, "%s grid %s (%zu x %zu%s%s): %zu pieces, capacity protocol, 10 columns", prefix,
          name, nx, ny, half_open ? ", half-open" : "", touches ? "" : ", no touches", count);

    /* Rows in, clipped pieces as rows, only some outputs asked for. */
    F *rows = rows_of(segs, n, sizeof(F));
    F *clipped = T(floats)(4 * count);
    got = 0;
    status = API(grid_pieces_rows)(grid, rows, n, count, seg, NULL, NULL, NULL, tx, NULL, clipped,
                                   &got);
    ok = status == SLABCLIP_OK && got == count;
    snprintf(label, sizeof label, "%s_segment", name);
    ok &= same(prefix, label, seg, count * 8);
    snprintf(label, sizeof label, "%s_t_exit", name);
    ok &= same(prefix, label, tx, count * sizeof(F));
    void *back[4];
    columns_of(clipped, count, sizeof(F), back);
    for (int c = 0; c < 4; c++) {
        snprintf(label, sizeof label, "%s_piece_%s", name, cols[c]);
        ok &= same(prefix, label, back[c], count * sizeof(F));
    }
    check(ok, "%s grid %s, rows: segment, t_exit, clipped rows", prefix, name);
    free4(back);
    free(rows);
    free(clipped);
    free(seg);
    free(ix);
    free(iy);
    free(te);
    free(tx);
    free(cls);
    free4((void **)p);
    API(grid_free)(grid);
}

static void T(run)(size_t n) {
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%s_%zu", TYPE_NAME, n);
    const size_t bytes = n * sizeof(F);
    const char *cols[4] = {"x0", "y0", "x1", "y1"};
    void *segs[4], *tracks[4], *walls[4];
    char label[64];
    for (int c = 0; c < 4; c++) {
        snprintf(label, sizeof label, "seg_%s", cols[c]);
        segs[c] = input(prefix, label, bytes);
        snprintf(label, sizeof label, "tracks_%s", cols[c]);
        tracks[c] = input(prefix, label, bytes);
    }
    size_t m = 0;
    for (int c = 0; c < 4; c++) {
        snprintf(label, sizeof label, "wall_%s", cols[c]);
        walls[c] = load(prefix, label, &m);
    }
    m /= sizeof(F);
    F *rect = input(prefix, "rect", 4 * sizeof(F));
    F *pw_rects = input(prefix, "pw_rects", 4 * bytes);
    size_t poly_bytes;
    F *poly = load(prefix, "poly", &poly_bytes);
    size_t nv = poly_bytes / (2 * sizeof(F));
    F *te = T(floats)(n), *tx = T(floats)(n);
    uint8_t *cls = xmalloc(n);
    F *c4[4] = {T(floats)(n), T(floats)(n), T(floats)(n), T(floats)(n)};
    F *rows = rows_of(segs, n, sizeof(F));
    F *clipped = T(floats)(4 * n);
    void *back[4];
    int ok, status;

    /* The clip against one rect: columns, every output. */
    status = API(clip)(segs[0], segs[1], segs[2], segs[3], n, rect[0], rect[1], rect[2], rect[3],
                       te, tx, cls, c4[0], c4[1], c4[2], c4[3]);
    ok = status == SLABCLIP_OK && same(prefix, "clip_t_entry", te, bytes)
         && same(prefix, "clip_t_exit", tx, bytes) && same(prefix, "clip_class", cls, n);
    for (int c = 0; c < 4; c++) {
        snprintf(label, sizeof label, "clip_%s", cols[c]);
        ok &= same(prefix, label, c4[c], bytes);
    }
    check(ok, "%s clip, columns: t_entry, t_exit, classes, clipped columns", prefix);
    /* Only the classes. */
    memset(cls, 0, n);
    status = API(clip)(segs[0], segs[1], segs[2], segs[3], n, rect[0], rect[1], rect[2], rect[3],
                       NULL, NULL, cls, NULL, NULL, NULL, NULL);
    check(status == SLABCLIP_OK && same(prefix, "clip_class", cls, n),
          "%s clip, columns: classes alone", prefix);
    /* Rows. */
    status = API(clip_rows)(rows, n, rect[0], rect[1], rect[2], rect[3], te, tx, cls, clipped);
    columns_of(clipped, n, sizeof(F), back);
    ok = status == SLABCLIP_OK && same(prefix, "clip_t_entry", te, bytes)
         && same(prefix, "clip_t_exit", tx, bytes) && same(prefix, "clip_class", cls, n);
    for (int c = 0; c < 4; c++) {
        snprintf(label, sizeof label, "clip_%s", cols[c]);
        ok &= same(prefix, label, back[c], bytes);
    }
    free4(back);
    check(ok, "%s clip, rows: t_entry, t_exit, classes, clipped rows", prefix);

    /* Pairwise, columns and rows. */
    status = API(clip_pairwise)(segs[0], segs[1], segs[2], segs[3], n, pw_rects, te, tx, cls,
                                c4[0], c4[1], c4[2], c4[3]);
    ok = status == SLABCLIP_OK && same(prefix, "pw_t_entry", te, bytes)
         && same(prefix, "pw_t_exit", tx, bytes) && same(prefix, "pw_class", cls, n);
    for (int c = 0; c < 4; c++) {
        snprintf(label, sizeof label, "pw_%s", cols[c]);
        ok &= same(prefix, label, c4[c], bytes);
    }
    check(ok, "%s clip pairwise, columns", prefix);
    status = API(clip_pairwise_rows)(rows, n, pw_rects, te, tx, cls, clipped);
    columns_of(clipped, n, sizeof(F), back);
    ok = status == SLABCLIP_OK && same(prefix, "pw_t_entry", te, bytes)
         && same(prefix, "pw_t_exit", tx, bytes) && same(prefix, "pw_class", cls, n);
    for (int c = 0; c < 4; c++) {
        snprintf(label, sizeof label, "pw_%s", cols[c]);
        ok &= same(prefix, label, back[c], bytes);
    }
    free4(back);
    check(ok, "%s clip pairwise, rows", prefix);

    /* Segments against the octagon. */
    status = API(clip_polygon)(segs[0], segs[1], segs[2], segs[3], n, poly, nv, te, tx, cls,
                               c4[0], c4[1], c4[2], c4[3]);
    ok = status == SLABCLIP_OK && same(prefix, "cp_t_entry", te, bytes)
         && same(prefix, "cp_t_exit", tx, bytes) && same(prefix, "cp_class", cls, n);
    for (int c = 0; c < 4; c++) {
        snprintf(label, sizeof label, "cp_%s", cols[c]);
        ok &= same(prefix, label, c4[c], bytes);
    }
    check(ok, "%s clip polygon (%zu vertices)", prefix, nv);

    /* Grid pieces. */
    T(check_grid)(prefix, "ga", segs, n, rect, 7, 5, 0, 1);
    T(check_grid)(prefix, "gb", tracks, n, rect, 100, 100, 1, 0);

    /* A rect set: the capacity protocol, columns and rows. */
    size_t rs_bytes;
    F *rs_rects = load(prefix, "rs_rects", &rs_bytes);
    API(rect_set) *set = NULL;
    status = API(rect_set_new)(rs_rects, rs_bytes / (4 * sizeof(F)), &set);
    size_t count = 0;
    ok = status == SLABCLIP_OK;
    status = API(rect_set_clip)(set, segs[0], segs[1], segs[2], segs[3], n, 0, NULL, NULL, NULL,
                                NULL, NULL, &count);
    ok &= status == (count == 0 ? SLABCLIP_OK : SLABCLIP_ERR_CAPACITY);
    {
        int64_t *hs = xmalloc(count * 8), *hr = xmalloc(count * 8);
        F *hte = T(floats)(count), *htx = T(floats)(count);
        uint8_t *hc = xmalloc(count);
        size_t got = 0;
        status = API(rect_set_clip)(set, segs[0], segs[1], segs[2], segs[3], n, count, hs, hr,
                                    hte, htx, hc, &got);
        ok &= status == SLABCLIP_OK && got == count && same(prefix, "rs_segment", hs, count * 8)
              && same(prefix, "rs_rect", hr, count * 8)
              && same(prefix, "rs_t_entry", hte, count * sizeof(F))
              && same(prefix, "rs_t_exit", htx, count * sizeof(F))
              && same(prefix, "rs_class", hc, count);
        memset(hr, 0, count * 8);
        got = 0;
        status = API(rect_set_clip_rows)(set, rows, n, count, NULL, hr, NULL, NULL, hc, &got);
        ok &= status == SLABCLIP_OK && got == count && same(prefix, "rs_rect", hr, count * 8)
              && same(prefix, "rs_class", hc, count);
        free(hs);
        free(hr);
        free(hte);
        free(htx);
        free(hc);
    }
    API(rect_set_free)(set);
    free(rs_rects);
    check(ok, "%s rect set: %zu hits, capacity protocol, columns and rows", prefix, count);

    /* Rays from the segments against the rect, the pairwise rects, and the octagon. */
    F *dx = input(prefix, "ray_dx", bytes), *dy = input(prefix, "ray_dy", bytes);
    status = API(cast_rect)(segs[0], segs[1], dx, dy, n, rect[0], rect[1], rect[2], rect[3],
                            (F)INFINITY, te, tx, cls);
    check(status == SLABCLIP_OK && same(prefix, "cr_t_entry", te, bytes)
              && same(prefix, "cr_t_exit", tx, bytes) && same(prefix, "cr_class", cls, n),
          "%s cast rect (t_max = inf)", prefix);
    status = API(cast_rects)(segs[0], segs[1], dx, dy, n, pw_rects, (F)0.75, te, tx, cls);
    check(status == SLABCLIP_OK && same(prefix, "crs_t_entry", te, bytes)
              && same(prefix, "crs_t_exit", tx, bytes) && same(prefix, "crs_class", cls, n),
          "%s cast rects, pairwise (t_max = 0.75)", prefix);
    {
        F *f5[5] = {T(floats)(n), T(floats)(n), T(floats)(n), T(floats)(n), T(floats)(n)};
        uint32_t *edge = xmalloc(n * 4);
        const char *names[5] = {"t", "x", "y", "nx", "ny"};
        for (int exit_mode = 0; exit_mode < 2; exit_mode++) {
            const char *tag = exit_mode ? "px" : "po";
            status = API(cast_polygon)(segs[0], segs[1], dx, dy, n, poly, nv, (F)INFINITY,
                                       exit_mode, f5[0], f5[1], f5[2], f5[3], f5[4], edge, cls);
            ok = status == SLABCLIP_OK;
            for (int c = 0; c < 5; c++) {
                snprintf(label, sizeof label, "%s_%s", tag, names[c]);
                ok &= same(prefix, label, f5[c], bytes);
            }
            snprintf(label, sizeof label, "%s_edge", tag);
            ok &= same(prefix, label, edge, n * 4);
            snprintf(label, sizeof label, "%s_inside", tag);
            ok &= same(prefix, label, cls, n);
            check(ok, "%s cast polygon (%s)", prefix, exit_mode ? "exit" : "origin");
        }
        for (int c = 0; c < 5; c++) {
            free(f5[c]);
        }
        free(edge);
    }

    /* Closest hits among walls, plain and through a scene; any hit; line of sight. */
    {
        void *sr[4];
        const char *rc[4] = {"sr_ox", "sr_oy", "sr_dx", "sr_dy"};
        for (int c = 0; c < 4; c++) {
            sr[c] = input(prefix, rc[c], bytes);
        }
        F *t = T(floats)(n), *s = T(floats)(n), *nx = T(floats)(n), *ny = T(floats)(n);
        uint32_t *index = xmalloc(n * 4);
        const F t_max = (F)40.0;
        status = API(cast_segments)(sr[0], sr[1], sr[2], sr[3], n, walls[0], walls[1], walls[2],
                                    walls[3], m, t_max, t, s, index, nx, ny);
        check(status == SLABCLIP_OK && same(prefix, "cs_t", t, bytes)
                  && same(prefix, "cs_s", s, bytes) && same(prefix, "cs_index", index, n * 4)
                  && same(prefix, "cs_nx", nx, bytes) && same(prefix, "cs_ny", ny, bytes),
              "%s cast segments (%zu walls)", prefix, m);
        API(scene) *scene = NULL;
        status = API(scene_new)(walls[0], walls[1], walls[2], walls[3], m, &scene);
        ok = status == SLABCLIP_OK;
        memset(index, 0, n * 4);
        status = API(scene_cast)(scene, sr[0], sr[1], sr[2], sr[3], n, t_max, t, s, index, nx, ny);
        ok &= status == SLABCLIP_OK && same(prefix, "cs_t", t, bytes)
              && same(prefix, "cs_s", s, bytes) && same(prefix, "cs_index", index, n * 4)
              && same(prefix, "cs_nx", nx, bytes) && same(prefix, "cs_ny", ny, bytes);
        check(ok, "%s scene cast: the plain query's bits", prefix);
        status = API(scene_any_hit)(scene, sr[0], sr[1], sr[2], sr[3], n, t_max, cls);
        check(status == SLABCLIP_OK && same(prefix, "ah_hit", cls, n), "%s scene any hit",
              prefix);
        F *bx = input(prefix, "los_bx", bytes), *by = input(prefix, "los_by", bytes);
        status = API(scene_line_of_sight)(scene, sr[0], sr[1], bx, by, n, 0, 1, cls);
        check(status == SLABCLIP_OK && same(prefix, "los_out", cls, n),
              "%s scene line of sight (B excluded)", prefix);
        /* Refit with the same walls: the same answers. */
        status = API(scene_refit)(scene, walls[0], walls[1], walls[2], walls[3], m);
        ok = status == SLABCLIP_OK;
        status = API(scene_cast)(scene, sr[0], sr[1], sr[2], sr[3], n, t_max, NULL, NULL, index,
                                 NULL, NULL);
        ok &= status == SLABCLIP_OK && same(prefix, "cs_index", index, n * 4);
        check(ok, "%s scene refit, then cast: index alone", prefix);
        API(scene_free)(scene);
        free(bx);
        free(by);
        free(t);
        free(s);
        free(nx);
        free(ny);
        free(index);
        free4(sr);
    }

    free(dx);
    free(dy);
    free(rect);
    free(pw_rects);
    free(poly);
    free(te);
    free(tx);
    free(cls);
    free4((void **)c4);
    free(rows);
    free(clipped);
    free4(segs);
    free4(tracks);
    free4(walls);
}

/* Bad arguments: each the documented status and a message naming the problem. */
static void T(bad)(void) {
    printf("bad arguments, %s\n", TYPE_NAME);
    F x0[5] = {0, 0.5, 2, -1, 0.25}, y0[5] = {0, 0.5, 2, 0.5, 0.25};
    F x1[5] = {1, 0.5, 3, 2, 0.75}, y1[5] = {1, 2, 3, 0.5, 0.75};
    F te[5], tx[5], cx[4][5];
    uint8_t cls[5];
    const F nan = (F)NAN;
    int status;

    status = API(clip)(NULL, y0, x1, y1, 5, 0, 0, 1, 1, te, tx, cls, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_NULL, "x0 is NULL", TYPE_NAME " clip, x0 NULL");
    status = API(clip)(x0, y0, x1, y1, 5, 1, 0, 0, 1, te, tx, cls, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_RECT, "xmin = 1 is greater than xmax = 0",
                 TYPE_NAME " clip, reversed rect");
    status = API(clip)(x0, y0, x1, y1, 5, 0, 1, 1, 0, te, tx, cls, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_RECT, "ymin", TYPE_NAME " clip, reversed rect in y");
    memset(cls, 0xAB, sizeof cls);
    status = API(clip)(x0, y0, x1, y1, 5, 0, nan, 1, 1, te, tx, cls, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_RECT, "ymin = NaN is not finite", TYPE_NAME " clip, NaN rect");
    check(cls[0] == 0xAB && cls[4] == 0xAB, TYPE_NAME " clip, NaN rect: no output written");
    status = API(clip)(x0, y0, x1, y1, 5, 0, 0, (F)INFINITY, 1, te, tx, cls, NULL, NULL, NULL,
                       NULL);
    expect_error(status, SLABCLIP_ERR_RECT, "xmax = inf", TYPE_NAME " clip, infinite rect");
    status = API(clip)(x0, y0, x1, y1, 5, 0, 0, 1, 1, te, tx, cls, cx[0], cx[1], NULL, cx[3]);
    expect_error(status, SLABCLIP_ERR_NULL, "cx1 is NULL", TYPE_NAME " clip, three of four columns");
    status = API(clip)(x0, y0, x1, y1, 5, 0, 0, 1, 1, x0, tx, cls, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_ARGUMENT, "x0 and t_entry overlap",
                 TYPE_NAME " clip, output over an input");
    status = API(clip)(x0, y0, x1, y1, 5, 0, 0, 1, 1, te, te + 2, cls, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_ARGUMENT, "t_entry and t_exit overlap",
                 TYPE_NAME " clip, overlapping outputs");
    status = API(clip)((const F *)((const char *)x0 + 1), y0, x1, y1, 4, 0, 0, 1, 1, te, tx, cls,
                       NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_ARGUMENT, "x0 is not aligned",
                 TYPE_NAME " clip, misaligned column");
    status = API(clip_rows)(x0, SIZE_MAX / 2, 0, 0, 1, 1, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_LENGTH, "segments: ", TYPE_NAME " clip rows, n overflows");
    status = API(clip_rows)(NULL, 2, 0, 0, 1, 1, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_NULL, "segments is NULL", TYPE_NAME " clip rows, NULL rows");

    /* Pairwise: the bad row is named. */
    F rects[20] = {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1};
    rects[12] = 2; /* row 3: xmin 2 > xmax 1 */
    status = API(clip_pairwise)(x0, y0, x1, y1, 5, rects, te, tx, cls, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_RECT, "rects row 3: invalid rect",
                 TYPE_NAME " clip pairwise, reversed rect in row 3");
    rects[12] = 0;
    rects[17] = nan; /* row 4: ymin NaN */
    status = API(clip_pairwise_rows)(x0, 1, rects, te, tx, cls, NULL);
    check(status == SLABCLIP_OK, TYPE_NAME " clip pairwise rows, n = 1 reads row 0 only");
    status = API(clip_pairwise)(x0, y0, x1, y1, 5, rects, te, tx, cls, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_RECT, "rects row 4", TYPE_NAME " clip pairwise, NaN in row 4");
    status = API(clip_pairwise)(x0, y0, x1, y1, 5, NULL, te, tx, cls, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_NULL, "rects is NULL", TYPE_NAME " clip pairwise, NULL rects");

    /* Polygons. */
    F bow[8] = {0, 0, 1, 1, 1, 0, 0, 1}; /* self-crossing */
    status = API(clip_polygon)(x0, y0, x1, y1, 5, bow, 4, te, tx, cls, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_ARGUMENT, "vertices: invalid polygon",
                 TYPE_NAME " clip polygon, self-crossing");
    status = API(clip_polygon)(x0, y0, x1, y1, 5, bow, 2, te, tx, cls, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_ARGUMENT, "invalid polygon",
                 TYPE_NAME " clip polygon, two vertices");

    /* Grids. */
    API(grid) *grid = NULL;
    status = API(grid_new)(0, 0, 1, 1, 0, 4, 0, 1, &grid);
    expect_error(status, SLABCLIP_ERR_ARGUMENT, "nx = 0 cells", TYPE_NAME " grid, nx = 0");
    status = API(grid_new)(1, 0, 0, 1, 4, 4, 0, 1, &grid);
    expect_error(status, SLABCLIP_ERR_RECT, "greater than", TYPE_NAME " grid, reversed rect");
    status = API(grid_new)(0, 0, 0, 1, 4, 4, 0, 1, &grid);
    expect_error(status, SLABCLIP_ERR_ARGUMENT, "no extent", TYPE_NAME " grid, zero width");
    status = API(grid_new)(0, 0, 1, 1, 4, 4, 0, 1, NULL);
    expect_error(status, SLABCLIP_ERR_NULL, "out is NULL", TYPE_NAME " grid, out NULL");
    check(grid == NULL, TYPE_NAME " grid: *out untouched by the failed calls");
    size_t count = 0;
    status = API(grid_pieces)(NULL, x0, y0, x1, y1, 5, 0, NULL, NULL, NULL, NULL, NULL, NULL,
                              NULL, NULL, NULL, NULL, &count);
    expect_error(status, SLABCLIP_ERR_NULL, "grid is NULL", TYPE_NAME " grid pieces, grid NULL");
    status = API(grid_new)(0, 0, 1, 1, 4, 4, 0, 1, &grid);
    check(status == SLABCLIP_OK && grid != NULL, TYPE_NAME " grid, 4 x 4");
    status = API(grid_pieces)(grid, x0, y0, x1, y1, 5, 0, NULL, NULL, NULL, NULL, NULL, NULL,
                              NULL, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_NULL, "count is NULL", TYPE_NAME " grid pieces, count NULL");
    int64_t seg[2];
    status = API(grid_pieces)(grid, x0, y0, x1, y1, 5, 2, seg, NULL, NULL, NULL, NULL, NULL, NULL,
                              NULL, NULL, NULL, &count);
    expect_error(status, SLABCLIP_ERR_CAPACITY, "do not fit in capacity = 2",
                 TYPE_NAME " grid pieces, capacity too small");
    check(count > 2, TYPE_NAME " grid pieces: *count holds the %zu pieces needed", count);
    API(grid_free)(grid);

    /* Rect sets. */
    API(rect_set) *set = NULL;
    status = API(rect_set_new)(rects, 5, &set);
    expect_error(status, SLABCLIP_ERR_RECT, "rects row 4: invalid rect: ymin = NaN",
                 TYPE_NAME " rect set, NaN in row 4");
    status = API(rect_set_new)(rects, 4, &set);
    check(status == SLABCLIP_OK && set != NULL, TYPE_NAME " rect set of 4 rects");
    status = API(rect_set_clip)(set, x0, y0, x1, y1, 5, 1, NULL, NULL, NULL, NULL, NULL, &count);
    expect_error(status, SLABCLIP_ERR_CAPACITY, "capacity = 1",
                 TYPE_NAME " rect set clip, capacity too small");
    API(rect_set_free)(set);

    /* Rays. */
    status = API(cast_rect)(x0, y0, x1, y1, 5, 0, 0, 1, 1, -1, te, tx, cls);
    expect_error(status, SLABCLIP_ERR_ARGUMENT, "t_max", TYPE_NAME " cast rect, t_max = -1");
    status = API(cast_rect)(x0, y0, x1, y1, 5, 0, 0, 1, 1, nan, te, tx, cls);
    expect_error(status, SLABCLIP_ERR_ARGUMENT, "t_max", TYPE_NAME " cast rect, t_max = NaN");
    status = API(cast_rect)(x0, y0, x1, y1, 5, 0, 0, -1, 1, 1, te, tx, cls);
    expect_error(status, SLABCLIP_ERR_RECT, "xmin = 0 is greater than xmax = -1",
                 TYPE_NAME " cast rect, reversed rect");
    status = API(cast_rects)(x0, y0, x1, y1, 5, rects, 1, te, tx, cls);
    expect_error(status, SLABCLIP_ERR_RECT, "rects row 4", TYPE_NAME " cast rects, NaN in row 4");
    status = API(cast_polygon)(x0, y0, x1, y1, 5, bow, 4, 1, 0, te, NULL, NULL, NULL, NULL, NULL,
                               NULL);
    expect_error(status, SLABCLIP_ERR_ARGUMENT, "invalid polygon",
                 TYPE_NAME " cast polygon, self-crossing");
    status = API(cast_segments)(x0, y0, x1, y1, 5, NULL, y0, x1, y1, 3, 1, te, NULL, NULL, NULL,
                                NULL);
    expect_error(status, SLABCLIP_ERR_NULL, "x0 is NULL", TYPE_NAME " cast segments, walls NULL");

    /* Scenes. */
    API(scene) *scene = NULL;
    status = API(scene_new)(x0, y0, x1, y1, 5, NULL);
    expect_error(status, SLABCLIP_ERR_NULL, "out is NULL", TYPE_NAME " scene, out NULL");
    status = API(scene_new)(x0, y0, x1, y1, 5, &scene);
    check(status == SLABCLIP_OK && scene != NULL, TYPE_NAME " scene of 5 walls");
    status = API(scene_refit)(scene, x0, y0, x1, y1, 4);
    expect_error(status, SLABCLIP_ERR_LENGTH, "walls has 4 elements, expected 5",
                 TYPE_NAME " scene refit, 4 walls for 5");
    status = API(scene_cast)(scene, x0, y0, x1, y1, 5, -1, te, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_ARGUMENT, "t_max", TYPE_NAME " scene cast, t_max = -1");
    status = API(scene_any_hit)(scene, x0, y0, x1, y1, 5, 1, NULL);
    expect_error(status, SLABCLIP_ERR_NULL, "hit is NULL", TYPE_NAME " scene any hit, hit NULL");
    status = API(scene_line_of_sight)(scene, x0, y0, x1, y1, 5, 0, 0, NULL);
    expect_error(status, SLABCLIP_ERR_NULL, "out is NULL", TYPE_NAME " line of sight, out NULL");
    status = API(scene_cast)(NULL, x0, y0, x1, y1, 5, 1, te, NULL, NULL, NULL, NULL);
    expect_error(status, SLABCLIP_ERR_NULL, "scene is NULL", TYPE_NAME " scene cast, scene NULL");
    API(scene_free)(scene);
}
