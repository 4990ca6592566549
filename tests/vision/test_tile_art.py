"""Tile pictures from hardware.sim.tile_art: every class renders, styles vary, bodies have their wall."""

from __future__ import annotations

import numpy as np
import pytest

from controller.rules.tiles import ALL_TILES
from hardware.sim import tile_art


@pytest.mark.parametrize("tile", ALL_TILES)
def test_every_tile_renders_a_distinct_inked_face(tile):
    face = tile_art.tile_face(tile, 30, 40)
    assert face.shape == (40, 30, 3) and face.dtype == np.uint8
    haku = tile_art.tile_face("5z", 30, 40)
    if tile == "5z":
        assert np.array_equal(face, haku)
    else:
        # a glyph puts ink on the ivory face: clearly darker pixels than a blank haku
        diff = np.abs(face.astype(int) - haku.astype(int)).sum(axis=2)
        assert (diff > 120).sum() > 20, f"{tile} looks blank"


def test_faces_of_different_tiles_differ():
    faces = {t: tile_art.tile_face(t, 30, 40).astype(int) for t in ALL_TILES}
    for a, b in [("4p", "5p"), ("5p", "6p"), ("7s", "9s"), ("5m", "0m"), ("1f", "5f"), ("3f", "4f")]:
        assert np.abs(faces[a] - faces[b]).mean() > 3, (a, b)


def test_random_styles_change_ink_but_are_reproducible():
    s1 = tile_art.random_style(np.random.default_rng(7))
    s2 = tile_art.random_style(np.random.default_rng(7))
    assert s1 == s2 and hash(s1) == hash(s2)
    a = tile_art.tile_face("3s", 60, 80, style=s1)
    b = tile_art.tile_face("3s", 60, 80, style=tile_art.random_style(np.random.default_rng(8)))
    assert np.array_equal(a, tile_art.tile_face("3s", 60, 80, style=s2))
    assert not np.array_equal(a, b)


def test_wholly_red_five_has_no_plain_ink():
    style = tile_art.with_style(tile_art.random_style(np.random.default_rng(3)), is_red_five_whole=True)
    face = tile_art.tile_face("0p", 60, 80, style=style).astype(int)
    b, g, r = face[..., 0], face[..., 1], face[..., 2]
    inked = (b + g + r) < 500
    assert inked.sum() > 200
    assert (r[inked] > b[inked] + 40).mean() > 0.8  # the ink is red


def test_framed_haku_is_not_blank():
    framed = tile_art.tile_face("5z", 60, 80, style=tile_art.with_style(tile_art.DEFAULT_STYLE,
                                                                           has_haku_frame=True))
    plain = tile_art.tile_face("5z", 60, 80)
    assert np.abs(framed.astype(int) - plain.astype(int)).sum(axis=2).max() > 200


def test_back_takes_the_set_colour():
    back = tile_art.tile_back("blue", 30, 40)
    centre = back[20, 15].astype(int)
    assert centre[0] > centre[2] + 60
    back = tile_art.tile_back((40, 190, 230), 30, 40)
    assert back[20, 15, 2] > back[20, 15, 0] + 100
    with pytest.raises(ValueError, match="unknown back colour"):
        tile_art.tile_back("plaid", 30, 40)


@pytest.mark.parametrize("side,shape", [("bottom", (48, 30, 4)), ("top", (48, 30, 4)),
                                        ("left", (40, 38, 4)), ("right", (40, 38, 4))])
def test_body_topdown_shows_the_wall_on_the_requested_side(side, shape):
    body = tile_art.tile_body_topdown("1z", 30, 40, thickness_px=8, side=side, back_colour="green")
    assert body.shape == shape
    if side == "bottom":
        wall = body[40:, 10:20, :3].astype(int)
        assert wall[0, :, 2].mean() > 150             # face layer next to the top: ivory
        assert wall[-1, :, 1].mean() > wall[-1, :, 0].mean() + 30  # back layer: green


def test_face_down_body_has_back_on_top():
    body = tile_art.tile_body_topdown("back", 30, 40, thickness_px=6, back_colour="yellow")
    assert body[20, 15, 2] > 150 and body[20, 15, 0] < 100


def test_unknown_tile_and_bad_size_are_clear_errors():
    with pytest.raises(ValueError, match="unknown tile"):
        tile_art.tile_face("0z", 30, 40)
    with pytest.raises(ValueError, match="size"):
        tile_art.tile_face("1m", 0, 40)


def test_blit_pastes_inside_the_quad_only():
    canvas = np.zeros((50, 50, 3), np.uint8)
    src = tile_art.tile_face("7z", 20, 20, alpha=True)
    tile_art.blit(canvas, src, np.float32([[10, 10], [30, 10], [30, 30], [10, 30]]))
    assert canvas[20, 20].sum() > 0 and canvas[40, 40].sum() == 0 and canvas[5, 5].sum() == 0


def test_packaged_art_is_used_without_shared(monkeypatch):
    monkeypatch.delenv(tile_art.ASSET_ENV, raising=False)
    assert tile_art.art_dir() == tile_art.PACKAGE_ART_DIR
    assert (tile_art.PACKAGE_ART_DIR / "front.png").is_file()


def test_a_worn_set_keeps_its_kinds_apart_and_is_reproducible():
    base = tile_art.random_style(np.random.default_rng(11))
    worn = tile_art.worn_style(base, np.random.default_rng(5))
    assert worn == tile_art.worn_style(base, np.random.default_rng(5)) and worn.relief > 0
    plain, aged = (tile_art.tile_face("7z", 60, 80, style=s).astype(int) for s in (base, worn))
    assert np.abs(plain - aged).sum(axis=2).max() > 60          # grooves shaded, paint worn
    assert np.array_equal(tile_art.tile_face("7z", 60, 80, style=worn), tile_art.tile_face("7z", 60, 80, style=worn))
    hollow = tile_art.with_style(worn, outline_px=3, wear=0.0)
    faces = {t: tile_art.tile_face(t, 60, 80, style=hollow).astype(int) for t in ("4p", "5p", "7s", "9s", "5z")}
    for a, b in [("4p", "5p"), ("7s", "9s")]:
        assert np.abs(faces[a] - faces[b]).mean() > 3, (a, b)
    # the strokes painted only along their edges: less ink than the filled face
    filled = tile_art.tile_face("5p", 60, 80, style=tile_art.with_style(hollow, outline_px=0)).astype(int)
    def inked(face):
        return (np.abs(face - faces["5z"]).sum(axis=2) > 120).sum()
    assert 0 < inked(faces["5p"]) < inked(filled)


def test_each_kind_of_a_worn_set_wears_in_its_own_pattern():
    """The wear of a kind is drawn from the set's seed and the kind's name: kinds whose names add up
    alike (4m and 1p) wear differently, and a kind wears alike on every copy."""
    style = tile_art.with_style(tile_art.worn_style(tile_art.random_style(np.random.default_rng(11)),
                                                    np.random.default_rng(5)), wear=0.6, relief=0.0, outline_px=0)
    glyph = np.zeros((tile_art.ART_H, tile_art.ART_W, 4), np.float32)
    glyph[:, :, 3] = 1.0                      # one full stroke: what is left of it is the wear alone
    left = {t: tile_art._weathered(t, glyph, style)[0][:, :, 3] for t in ("4m", "1p")}
    assert sum(map(ord, "4m")) == sum(map(ord, "1p"))
    assert np.abs(left["4m"] - left["1p"]).mean() > 0.05
    assert np.array_equal(left["1p"], tile_art._weathered("1p", glyph, style)[0][:, :, 3])


def test_thinner_strokes_erase_no_glyph():
    """A set drawn with thinner strokes (``stroke_px`` -1) keeps every glyph: a line no wider than the
    thinning (Symbola's outlined pips) stays; eroded with the rest it kept a quarter of its ink, the
    pips of a 5p a pale blur (a set with blank tiles, which no printed set has)."""
    from hardware.sim.tile_designs import DESIGNS

    for name, design in DESIGNS.items():
        for tile in ALL_TILES:
            if tile == "5z":
                continue
            ink = [float(tile_art._styled_glyph(tile, tile_art.with_style(tile_art.DEFAULT_STYLE, design=design,
                                                                           stroke_px=s))[..., 3].sum()) for s in (0, -1)]
            assert ink[1] >= 0.35 * ink[0] > 0, (name, tile, ink)
