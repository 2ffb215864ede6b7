"""Reading the panels' SVG in tests: the tree, the tappable places, elements by class,
and the words a person sees or hears."""

from __future__ import annotations

import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def classes(element: ET.Element) -> set[str]:
    return set(element.get("class", "").split())


def places(root: ET.Element) -> dict[str, ET.Element]:
    """The tappable places by position; a position is one place, and a place says so."""
    found: dict[str, ET.Element] = {}
    for element in root.iter():
        place = element.get("data-place")
        if place is not None:
            assert place not in found, f"two elements for {place}"
            assert "place" in classes(element)
            found[place] = element
    return found


def of_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in classes(e)]


def words_of(root: ET.Element) -> str:
    """The words a person sees or hears: the texts and the titles (tooltips, screen readers)."""
    shown = [e for e in root.iter() if e.tag in (f"{SVG}text", f"{SVG}title")]
    return " ".join("".join(e.itertext()) for e in shown)


def texts_in(element: ET.Element) -> list[str]:
    return ["".join(e.itertext()) for e in element.iter(f"{SVG}text")]
