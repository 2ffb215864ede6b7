"""The Horus layout drawn: tiles on the half-edge lattice, regions shaded by terrain and
outlined, the river with its two ends ringed, the pyramid, the temple, necropolises,
islands, kingdom stones in their players' colours, the free places a tile may go, and a
refused move in red dashes. The panel (``companion.panels.horus``) lays out the rest.

Horus has no board, so the picture is framed around the layout: the frame fits the
tiles and the free places beside them into a box of fixed size, north up, one lattice
unit (half an edge) ``Frame.unit`` pixels. Tiles are places (a stone is set by tapping
its tile); so is each free place beside the layout, drawn as a small square around the
tile's would-be centre: two free places lie at least half an edge apart, so these
squares never overlap each other or a tile, and a tap names one position.
"""

from __future__ import annotations

from collections.abc import Iterable

from companion.panels.common import (
    Say,
    circle,
    colour,
    el,
    outlined,
    place,
    polygon,
    rect,
    text,
    title,
)
from rules.horus import HorusState, Pos
from rules.horus.geometry import SIDE, boundary
from rules.horus.scoring import RegionCount

WIDTH = 680
BOARD_W, BOARD_H = 660, 460  # the box the layout is fitted into
MAX_UNIT = 30  # half an edge, at most: a young layout is not drawn huge

TERRAIN_FILL = {"desert": "#ecd28c", "hills": "#c39a62", "farmland": "#a6d27a",
                "swamp": "#7fb3a1"}  # fmt: skip
TERRAIN_EDGE = {"desert": "#9c7a1c", "hills": "#6b4a1d", "farmland": "#3f7a1f",
                "swamp": "#245e4c"}  # fmt: skip
OTHER_FILL = "#d8d8d8"
WATER_FILL, WATER_EDGE = "#5b9be0", "#0b4fb3"
NECROPOLIS_FILL = "#8a8478"
TEMPLE_FILL = "#f3c623"
ISLAND = "#0b4fb3"
HINT = "#e07000"
FLAG = "#c01c28"


def seat_colour(state: HorusState, seat: int) -> str:
    """The paint of ``seat``'s stones: the kit's colour for the seat (the seat's number
    is written on each stone, so colour is not alone)."""
    colours = state.kit.stone_colours
    return colour(colours[seat % len(colours)])


class Frame:
    """Where the layout lies in the picture: lattice points to pixels, north up."""

    def __init__(self, positions: Iterable[Pos], top: float) -> None:
        found = list(positions) or [Pos(0, 0)]
        self.low_x = min(p.x for p in found) - 1
        self.high_x = max(p.x for p in found) + SIDE + 1
        self.low_y = min(p.y for p in found) - 1
        self.high_y = max(p.y for p in found) + SIDE + 1
        span_x, span_y = self.high_x - self.low_x, self.high_y - self.low_y
        self.unit = min(MAX_UNIT, BOARD_W / span_x, BOARD_H / span_y)
        self.left = (WIDTH - span_x * self.unit) / 2
        self.top = top + (BOARD_H - span_y * self.unit) / 2
        self.box_top = top

    def point(self, x: float, y: float) -> tuple[float, float]:
        return self.left + (x - self.low_x) * self.unit, self.top + (self.high_y - y) * self.unit

    def corner(self, at: Pos) -> tuple[float, float]:
        """The top left corner of a tile at ``at``."""
        return self.point(at.x, at.y + SIDE)

    def centre(self, at: Pos) -> tuple[float, float]:
        return self.point(at.x + SIDE / 2, at.y + SIDE / 2)

    @property
    def tile(self) -> float:
        return SIDE * self.unit

    @property
    def bottom(self) -> float:
        return self.box_top + BOARD_H


def terrain_name(state: HorusState, kind: str, lang: str) -> str:
    """A tile kind by its name in ``lang``."""
    if kind in state.kit.terrain:
        return state.kit.terrain[kind].german if lang == "de" else kind
    if lang == "de":
        from rules.horus.words import TILES_DE

        return TILES_DE.get(kind, kind)
    return {"end": "river end", "pyramid": "pyramid"}.get(kind, kind)


def tiles(
    state: HorusState,
    frame: Frame,
    regions: tuple[RegionCount, ...],
    marked: set[str],
    say: Say,
    lang: str,
) -> list[str]:
    """Every tile as a tappable place (its position), filled by its kind; a tile in a
    region says the region's size and worth; ``marked`` tiles (where a stone may go, a
    river end that may move) get the orange outline."""
    layout = state.layout
    region_at = {at: i for i, region in enumerate(regions) for at in region.tiles}
    size = frame.tile
    found = []
    for at, kind in sorted(layout.kind.items(), key=lambda item: (-item[0].y, item[0].x)):
        x, y = frame.corner(at)
        fill = _fill(state, kind)
        parts = [rect(x, y, size, size, fill=fill, stroke="#ffffff", stroke_width=1,
                      class_="cell tile", data_kind=kind, data_at=str(at))]  # fmt: skip
        label = [say("tile_at", kind=terrain_name(state, kind, lang), at=str(at))]
        if kind == "pyramid":
            parts.append(polygon([(x + size / 2, y + size * 0.2), (x + size * 0.8, y + size * 0.78),
                                  (x + size * 0.2, y + size * 0.78)], fill="#e8c46a",
                                 stroke="#6b4f1d", stroke_width=1.5, class_="pyramid"))  # fmt: skip
        elif kind == "temple":
            parts.append(text(x + size / 2, y + size / 2, "☥", size * 0.62, fill="#6b3d00",
                              dominant_baseline="central", class_="temple"))  # fmt: skip
        elif kind == "necropolis":
            parts.append(text(x + size / 2, y + size / 2, "✝", size * 0.5, fill="#ffffff",
                              dominant_baseline="central", class_="necropolis"))  # fmt: skip
        index = region_at.get(at)
        if index is not None:
            region = regions[index]
            label.append(say("region_words", n=region.size, value=region.value))
        if str(at) in marked:
            parts.append(_hint(x, y, size))
            label.append(say("hint_here"))
        found.append(place(str(at), parts, " · ".join(label)))
    return found


def _fill(state: HorusState, kind: str) -> str:
    if kind in state.kit.terrain:
        return TERRAIN_FILL.get(kind, OTHER_FILL)
    if kind in ("river", "end", "pyramid"):
        return WATER_FILL
    if kind == "temple":
        return TEMPLE_FILL
    if kind == "necropolis":
        return NECROPOLIS_FILL
    return OTHER_FILL


def _hint(x: float, y: float, size: float) -> str:
    # Outlined, not filled: a tint would change the terrain's colour under it.
    return rect(x + 2, y + 2, size - 4, size - 4, fill="none", stroke=HINT, stroke_width=3,
                stroke_dasharray="6 3", class_="next", pointer_events="none")  # fmt: skip


def free_places(frame: Frame, positions: Iterable[Pos], marked: set[str], say: Say) -> list[str]:
    """The free places beside the layout as small squares to tap, a tile's would-be
    centre each; where a legal tile goes, orange."""
    found = []
    half = frame.unit / 2
    for at in positions:
        cx, cy = frame.centre(at)
        hinted = str(at) in marked
        parts = [rect(cx - half, cy - half, frame.unit, frame.unit, fill="#ffffff",
                      fill_opacity=0.5, stroke="#b0b0b0", stroke_width=0.6,
                      class_="cell free", data_at=str(at))]  # fmt: skip
        if hinted:
            parts.append(circle(cx, cy, frame.unit * 0.32, fill=HINT, fill_opacity=0.8,
                                class_="next", pointer_events="none"))  # fmt: skip
        words = say("free_at", at=str(at)) + (f" · {say('hint_here')}" if hinted else "")
        found.append(place(str(at), parts, words))
    return found


def region_outlines(
    state: HorusState, frame: Frame, regions: tuple[RegionCount, ...], say: Say, lang: str
) -> list[str]:
    """Each region outlined once in its terrain's dark colour, its worth written on its
    first tile, islands ringed in blue dashes and the temple's doubling marked."""
    found = []
    for index, region in enumerate(regions):
        segments = []
        for (cx, cy), (ax, ay) in boundary(region.tiles):
            # The unit side between the cell (cx, cy) and the cell across it.
            if ax != cx:
                x = max(ax, cx)
                (x0, y0), (x1, y1) = frame.point(x, cy), frame.point(x, cy + 1)
            else:
                y = max(ay, cy)
                (x0, y0), (x1, y1) = frame.point(cx, y), frame.point(cx + 1, y)
            segments.append(f"M{x0:.1f},{y0:.1f}L{x1:.1f},{y1:.1f}")
        edge = TERRAIN_EDGE.get(region.terrain, "#444444")
        parts = [title(_region_title(state, region, say, lang)),
                 el("path", d="".join(segments), fill="none", stroke=edge,
                    stroke_width=2.5, stroke_linecap="square")]  # fmt: skip
        if region.island:
            parts.append(el("path", d="".join(segments), fill="none", stroke=ISLAND,
                            stroke_width=1.5, stroke_dasharray="3 3", class_="island"))  # fmt: skip
        first = region.tiles[0]
        x, y = frame.corner(first)
        badge = str(region.value)
        marks = ("☥" if region.temple else "") + ("◎" if region.island else "")
        size = max(8.0, frame.tile * 0.34)
        parts.append(outlined(x + frame.tile * 0.28, y + frame.tile * 0.28, badge, size,
                              class_="worth"))  # fmt: skip
        if marks:
            parts.append(text(x + frame.tile * 0.72, y + frame.tile * 0.3, marks, size * 0.9,
                              fill="#0b2f6b", dominant_baseline="central",
                              class_="marks"))  # fmt: skip
        found.append(el("g", parts, class_="region", data_region=index,
                        data_terrain=region.terrain, data_size=region.size,
                        data_value=region.value, data_island="1" if region.island else None,
                        data_temple="1" if region.temple else None,
                        pointer_events="none"))  # fmt: skip
    return found


def _region_title(state: HorusState, region: RegionCount, say: Say, lang: str) -> str:
    name = terrain_name(state, region.terrain, lang)
    words = say("region_title", terrain=name, n=region.size, value=region.value)
    extra = [say(key) for key, on in (("temple_doubles", region.temple),
                                      ("island_doubles", region.island),
                                      ("capped", region.capped)) if on]  # fmt: skip
    return ", ".join([words, *extra])


def river_marks(state: HorusState, frame: Frame, say: Say) -> list[str]:
    """The river's two ends ringed (the places no tile may block), over their tiles."""
    found = []
    for at in state.layout.ends:
        cx, cy = frame.centre(at)
        r = frame.tile * 0.3
        ring = [title(say("end_at", at=str(at))),
                circle(cx, cy, r, fill="#ffffff", stroke=WATER_EDGE, stroke_width=3),
                circle(cx, cy, r * 0.4, fill=WATER_EDGE)]  # fmt: skip
        found.append(el("g", ring, class_="end", data_at=str(at), pointer_events="none"))
    return found


def stones(state: HorusState, frame: Frame, say: Say) -> list[str]:
    """The kingdom stones, a disc in the player's colour with the seat's number."""
    found = []
    for stone in state.stones:
        cx, cy = frame.centre(stone.at)
        paint = seat_colour(state, stone.player)
        r = frame.tile * 0.27
        disc = [title(say("stone_at", seat=stone.player, at=str(stone.at))),
                circle(cx + r * 0.5, cy + r * 0.5, r, fill=paint, stroke="#000000",
                       stroke_width=2),
                outlined(cx + r * 0.5, cy + r * 0.5, str(stone.player), r * 1.1)]  # fmt: skip
        found.append(el("g", disc, class_="stone", data_seat=stone.player, data_at=str(stone.at),
                        data_colour=paint, pointer_events="none"))  # fmt: skip
    return found


def ghost(frame: Frame, at: Pos, kind: str | None, say: Say, lang: str,
          state: HorusState) -> str:  # fmt: skip
    """The refused move in red dashes where it went: a tile's square, a stone's ring."""
    x, y = frame.corner(at)
    size = frame.tile
    dashed = {"fill": "none", "stroke": FLAG, "stroke_width": 3, "stroke_dasharray": "5 3"}
    parts = [title(say("flag_at", at=str(at))), rect(x - 1, y - 1, size + 2, size + 2, **dashed)]
    if kind is not None:
        fill = _fill(state, kind)
        parts.insert(1, rect(x, y, size, size, fill=fill, fill_opacity=0.55))
    else:
        cx, cy = frame.centre(at)
        parts.append(circle(cx, cy, size * 0.3, **dashed))
    parts.append(text(x + size / 2, y + size / 2, "✗", size * 0.5, fill=FLAG, font_weight="bold",
                      dominant_baseline="central"))  # fmt: skip
    return el("g", parts, class_="flagged", data_at=str(at), pointer_events="none")


def frame_positions(state: HorusState, free: Iterable[Pos], flagged: Pos | None) -> list[Pos]:
    """What the frame must show: the tiles, the free places drawn, a flagged position."""
    found = [*state.layout.kind, *free]
    if flagged is not None:
        found.append(flagged)
    return found
