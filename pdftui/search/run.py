"""A ranking run: keys best first, their scores, and what each arm contributed to each.

A :class:`Run` is what one stage of the search hands to the next (as pyserini passes a
run between ``rescore`` and ``merge``): the fusion steps below are pure functions
``Run -> Run``, so a hybrid search reads as its recipe (two arm lists, one weighted RRF,
the keyword coverage gate, the head field, the order, the reference-page demotion, the
arms' agreed first document, the identifier pin). Each key carries, per arm, its rank in
that arm's list, the weight in force and the score it added (:class:`Contribution`), so
the fused order can be checked by hand: a key's score is the sum of its contributions,
times any factor in :attr:`Run.factors`.

Keys are ``(doc, page)`` for page search and ``(doc, section id)`` for section search;
ranks are 1-based; an RRF contribution is ``weight / (k + rank)`` (Cormack et al. 2009).
Nothing here touches SQLite, numpy or Textual.
"""

from __future__ import annotations


from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from .fusion import K, rrf_score

Key = tuple[str, int]
"""``(doc, page)`` (page search) or ``(doc, section id)`` (section search)."""


class Arm(str, Enum):
    """The lists a fused score is made of."""

    KEYWORD = "keyword"          # stage-1 list of per-document BM25 ranks
    SEMANTIC = "semantic"        # pages by cosine; sections: semantic mode's own order
    SECTION_BODY = "section_body"  # sections by their best unit's cosine (hybrid)
    SECTION_HEAD = "section_head"  # sections by their head unit's cosine (hybrid)
    HEAD = "head"                # the head field: page 1 of documents whose byline holds it
    NAMED = "named"              # a section of a document the query names, by its place
    STAND_IN = "stand_in"        # a document not embedded yet: its keyword rank stands in
    TITLE = "title"              # a section whose title holds the query's own terms
    PHRASE = "phrase"            # a term lookup's pages holding its words as a phrase


@dataclass(frozen=True)
class Contribution:
    """What one arm added to a key's score: ``score = weight / (k + rank)``, ``rank``
    1-based in that arm's list, ``weight`` the weight in force for this key (after the
    coverage gate, a term lookup's semantic share, the head field's share²), ``k`` the RRF
    constant of that list."""

    arm: Arm
    rank: int
    weight: float
    score: float
    k: int = K

    def to_json(self) -> dict:
        """``{"arm", "rank", "weight", "score", "k"}`` (floats rounded to 6 places)."""
        return {"arm": self.arm.value, "rank": self.rank, "weight": round(self.weight, 6),
                "score": round(self.score, 6), "k": self.k}


@dataclass(frozen=True)
class Factor:
    """A multiplier applied to a key's fused score after the arms (reference-page
    demotion), or a re-ordering it was subject to (``factor`` 1.0: identifier pin)."""

    name: str
    factor: float

    def to_json(self) -> dict:
        """``{"name", "factor"}``."""
        return {"name": self.name, "factor": self.factor}


@dataclass(frozen=True)
class Run:
    """Keys in order (best first once :func:`order` ran) with their scores;
    ``evidence[key]`` the arms' contributions, ``factors[key]`` what changed the score or
    the place afterwards. ``scores`` keeps insertion order: the last tie-break."""

    scores: dict[Key, float] = field(default_factory=dict)
    evidence: dict[Key, tuple[Contribution, ...]] = field(default_factory=dict)
    factors: dict[Key, tuple[Factor, ...]] = field(default_factory=dict)

    @property
    def keys(self) -> list[Key]:
        """The keys in the run's order."""
        return list(self.scores)

    def pairs(self, n: int | None = None) -> list[tuple[Key, float]]:
        """``[(key, score)]`` in order, the first ``n`` (all when None)."""
        items = list(self.scores.items())
        return items if n is None else items[:n]

    def __len__(self) -> int:
        return len(self.scores)

    def _with(self, scores: dict[Key, float], evidence=None, factors=None) -> "Run":
        return Run(scores, self.evidence if evidence is None else evidence,
                   self.factors if factors is None else factors)


def _add(evidence: dict, key: Key, c: Contribution) -> None:
    evidence[key] = evidence.get(key, ()) + (c,)


def single(arm: Arm, keys: Sequence[Key], scores: Sequence[float] | None = None,
           k: int = K) -> Run:
    """The run of one arm alone (keyword or semantic mode): ``keys`` best first with
    ``scores`` (default ``1 / (k + rank)``); each key's contribution is its score."""
    out: dict[Key, float] = {}
    ev: dict[Key, tuple[Contribution, ...]] = {}
    for i, key in enumerate(keys, start=1):
        if key in out:
            continue
        s = scores[i - 1] if scores is not None else rrf_score(i, k)
        out[key] = s
        ev[key] = (Contribution(arm, i, 1.0, s, k),)
    return Run(out, ev)


def rrf(lists: Sequence[tuple[Arm, Sequence[Key], float]], k: int = K) -> Run:
    """Weighted RRF of ``[(arm, keys best first, weight)]``: each key scores the sum over
    the lists holding it of ``weight / (k + rank)`` (a key repeated in one list counts at
    its first place). Keys in the order first met, list by list."""
    scores: dict[Key, float] = {}
    ev: dict[Key, tuple[Contribution, ...]] = {}
    for arm, keys, w in lists:
        seen: set[Key] = set()
        for i, key in enumerate(keys, start=1):
            if key in seen:
                continue
            seen.add(key)
            s = rrf_score(i, k, w)
            scores[key] = scores.get(key, 0.0) + s
            _add(ev, key, Contribution(arm, i, w, s, k))
    return Run(scores, ev)


def gate_keyword(run: Run, keys: Sequence[Key], coverage: Sequence[float], weight: float,
                 power: float, k: int = K) -> Run:
    """The keyword coverage gate: each keyword contribution ``weight / (k + rank)`` of
    ``run`` is scaled by ``coverage ** power``, coverage being that key's share of the
    query's rarity mass (:func:`.keyword.row_rarity_share`): a page matching only the common
    words of a long query adds little. ``keys`` and ``coverage`` are the keyword list fed
    to :func:`rrf`, in its order."""
    scores = dict(run.scores)
    ev = dict(run.evidence)
    seen: set[Key] = set()
    for i, (key, c) in enumerate(zip(keys, coverage), start=1):
        if key in seen:
            continue
        seen.add(key)
        g = c ** power
        scores[key] -= rrf_score(i, k, weight * (1.0 - g))
        ev[key] = tuple(Contribution(x.arm, x.rank, weight * g, rrf_score(i, k, weight * g), k)
                        if x.arm is Arm.KEYWORD else x for x in ev.get(key, ()))
    return run._with(scores, ev)


def add_stand_in(run: Run, keys: Sequence[Key], pending: Collection[str], weight: float,
                 k: int = K) -> Run:
    """Stand in for the semantic arm where it cannot speak: each key of the keyword list
    ``keys`` (best first) whose document is ``pending`` (not embedded yet, so absent from
    the semantic list) gains ``weight / (k + its keyword rank)``, ungated like the semantic
    contributions it stands for. Without it a first index's embedded documents outrank
    every other one in hybrid: their pages collect two arms' contributions, the others'
    one. The imputation assumes the semantic
    arm would rank such a page as the keyword arm does, so an embedded and a pending
    document meet on equal terms and the fused order moves to the real one as vectors
    arrive."""
    if not pending:
        return run
    scores = dict(run.scores)
    ev = dict(run.evidence)
    seen: set[Key] = set()
    for i, key in enumerate(keys, start=1):
        if key in seen or key[0] not in pending:
            continue
        seen.add(key)
        s = rrf_score(i, k, weight)
        scores[key] = scores.get(key, 0.0) + s
        _add(ev, key, Contribution(Arm.STAND_IN, i, weight, s, k))
    return run._with(scores, ev)


def add_phrase(run: Run, keys: Sequence[Key], weight: float, k: int = K) -> Run:
    """The pages holding a term lookup's words as a phrase (``keys``, best first: their
    keyword order) as one more list: the key at place r gains ``weight / (k + r)``; a key
    no other arm listed joins the run. Returns the run best first (stable)."""
    if not keys:
        return run
    scores = dict(run.scores)
    ev = dict(run.evidence)
    for r, key in enumerate(keys, start=1):
        s = rrf_score(r, k, weight)
        scores[key] = scores.get(key, 0.0) + s
        _add(ev, key, Contribution(Arm.PHRASE, r, weight, s, k))
    return _resorted(run, scores, ev)


def add_titled(run: Run, keys: Sequence[Key], weight: float, k: int = K) -> Run:
    """Sections whose title states the query (``keys``, in ``run``'s order, which must be
    best first) as one more list: the key at place r gains ``weight / (k + r)``. Returns
    the run best first (stable)."""
    if not keys:
        return run
    scores = dict(run.scores)
    ev = dict(run.evidence)
    for r, key in enumerate(keys, start=1):
        s = rrf_score(r, k, weight)
        scores[key] += s
        _add(ev, key, Contribution(Arm.TITLE, r, weight, s, k))
    return _resorted(run, scores, ev)


def add_head(run: Run, head: Sequence[tuple[Key, float]], weight: float,
             k: int = K) -> Run:
    """Add the head-field list ``[(key, share)]`` (best first): ``weight x share^2 /
    (k + rank)`` per listed key (a head holding all the query's rare words counts fully);
    a key no other arm listed joins the run."""
    scores = dict(run.scores)
    ev = dict(run.evidence)
    for i, (key, share) in enumerate(head, start=1):
        w = weight * share * share
        s = rrf_score(i, k, w)
        scores[key] = scores.get(key, 0.0) + s
        _add(ev, key, Contribution(Arm.HEAD, i, w, s, k))
    return run._with(scores, ev)


def add_named(run: Run, shares: Mapping[str, float], weight: float, k: int = K) -> Run:
    """Sections of the documents a query names (``{doc: share}``, the share of the query's
    rarity mass the document's head holds, as the head field's): each named document's
    keys, in ``run``'s order (which must be best first), are one list of their own, a key
    gaining ``weight x share^2 / (k + r)``, r its 1-based place among its document's keys.
    The name says which document; the rest of the query says which part, and the part
    that comes first there comes first here. Returns the run best first (stable)."""
    if not shares:
        return run
    place: dict[str, int] = {}
    scores = dict(run.scores)
    ev = dict(run.evidence)
    for key in run.scores:
        share = shares.get(key[0])
        if share is None:
            continue
        r = place[key[0]] = place.get(key[0], 0) + 1
        w = weight * share * share
        s = rrf_score(r, k, w)
        scores[key] += s
        _add(ev, key, Contribution(Arm.NAMED, r, w, s, k))
    return _resorted(run, scores, ev)


def order(run: Run, first: Sequence[Key], second: Sequence[Key]) -> Run:
    """The run best first: by score, then by the better of the key's places in the
    lists ``first`` and ``second`` (the keyword and semantic lists), then by its place in
    ``first``; remaining ties keep the run's order."""
    big = 10 ** 9
    kr = dict.fromkeys(run.scores, big)
    kr.update((key, i) for i, key in reversed(list(enumerate(first))))
    sr = dict.fromkeys(run.scores, big)
    sr.update((key, i) for i, key in reversed(list(enumerate(second))))
    s = run.scores
    keys = sorted(s, key=lambda key: (-s[key], min(kr[key], sr[key]), kr[key]))
    return run._with({key: s[key] for key in keys})


def demote(run: Run, keys: Iterable[Key], factor: float, name: str) -> Run:
    """The run with each of ``keys`` scoring ``factor`` times its score, re-sorted by
    score (stable: equal scores keep their order)."""
    down = set(keys)
    items = [(key, s * factor if key in down else s) for key, s in run.scores.items()]
    idx = sorted(range(len(items)), key=lambda i: -items[i][1])
    fac = dict(run.factors)
    for key in down:
        if key in run.scores:
            fac[key] = fac.get(key, ()) + (Factor(name, factor),)
    return run._with({items[i][0]: items[i][1] for i in idx}, factors=fac)


def pin(run: Run, tier: Mapping[str, int], name: str) -> Run:
    """The run with keys ordered by their document's ``tier`` (lower first; documents
    without one last), each tier in the run's order."""
    keys = sorted(run.scores, key=lambda key: tier.get(key[0], 2 ** 31))
    fac = dict(run.factors)
    for key in keys:
        if key[0] in tier:
            fac[key] = fac.get(key, ()) + (Factor(name, 1.0),)
    return run._with({key: run.scores[key] for key in keys}, factors=fac)


def _resorted(run: Run, scores: dict[Key, float], evidence=None, factors=None) -> Run:
    """``run`` with new ``scores``, best first (stable: equal scores keep the run's order)."""
    keys = sorted(scores, key=lambda key: -scores[key])
    return run._with({key: scores[key] for key in keys}, evidence, factors)


def first_of_arm(run: Run, arm: Arm) -> Key | None:
    """The key ``arm`` ranked first (rank 1 in its evidence), None when it listed none."""
    return next((key for key, ev in run.evidence.items()
                 if any(c.arm is arm and c.rank == 1 for c in ev)), None)


def agreed_first(run: Run, name: str) -> Run:
    """The run with the document both the keyword and the semantic arm rank first (their
    rank-1 keys lie in one document) led by that document's best key; unchanged when the
    arms' first documents differ or it leads already. Scores are left as they are; the
    moved key records ``Factor(name, 1.0)``. Two arms reading the query in unrelated ways
    agreeing on a document is the strongest evidence a folder search gets (CombMNZ's
    premise, Fox & Shaw, TREC-2 1994), which the fused scores of single pages can
    outvote."""
    kw, sem = first_of_arm(run, Arm.KEYWORD), first_of_arm(run, Arm.SEMANTIC)
    if kw is None or sem is None or kw[0] != sem[0]:
        return run
    keys = run.keys
    best = next(key for key in keys if key[0] == kw[0])
    if keys[0] == best:
        return run
    fac = dict(run.factors)
    fac[best] = fac.get(best, ()) + (Factor(name, 1.0),)
    keys.remove(best)
    return run._with({key: run.scores[key] for key in [best] + keys}, factors=fac)


def extended(first: Run, deeper: Run) -> Run:
    """``first`` (best first) followed by the keys of ``deeper`` it lacks, in ``deeper``'s
    order, each with ``deeper``'s score, evidence and factors: a longer list that keeps
    the shorter one's order as its start."""
    scores = dict(first.scores)
    ev, fac = dict(first.evidence), dict(first.factors)
    for key, s in deeper.scores.items():
        if key not in scores:
            scores[key] = s
            if key in deeper.evidence:
                ev[key] = deeper.evidence[key]
            if key in deeper.factors:
                fac[key] = deeper.factors[key]
    return Run(scores, ev, fac)


def keep(run: Run, ok: Callable[[Key], bool]) -> Run:
    """The run without the keys ``ok`` refuses (order kept)."""
    return run._with({key: s for key, s in run.scores.items() if ok(key)})


def listing(keys: Sequence[tuple[Key, float]]) -> Run:
    """A run of given ``[(key, score)]`` (a field-only query's listing), no arm evidence."""
    return Run(dict(keys))


__all__ = ["Arm", "Contribution", "Factor", "Key", "Run", "Weights", "add_head",
           "add_named", "add_stand_in", "add_titled", "demote", "extended", "gate_keyword", "keep",
           "listing", "order", "pin", "rrf", "single"]


@dataclass(frozen=True)
class Weights:
    """The weights in force for one hybrid query (None: that signal did not run).

    ``keyword``: the keyword list's RRF weight before the coverage gate, which scales each
    keyword contribution by the key's coverage ** ``coverage_power``; ``semantic``: the
    semantic list's weight after ``semantic_confidence`` (page search: its multiplier, 1
    but 0 for a term lookup of a few words one page holds);
    ``first_unit_weight``: the page-head share A of a page's cosine; ``head``: the head
    field's weight before its share^2; ``section_head``: the section head list's weight;
    ``reference``: the factor of a reference-list page (page search) or section (section
    search); ``few``: the scope was searched as one document set (no gate, head field or
    page-head blend); ``named``: the weight, before its share^2, of the sections of a
    document the query names (:func:`add_named`); ``stand_in``: the weight of the keyword ranks standing in for
    the semantic arm in documents not embedded yet (:func:`add_stand_in`); ``title``: the
    weight of the list of sections whose title states the query (:func:`add_titled`);
    ``phrase``: the weight of a term lookup's pages holding it as a phrase
    (:func:`add_phrase`)."""

    k: int
    keyword: float | None = None
    coverage_power: float | None = None
    semantic: float | None = None
    semantic_confidence: float | None = None
    first_unit_weight: float | None = None
    head: float | None = None
    section_head: float | None = None
    reference: float | None = None
    few: bool = False
    named: float | None = None
    stand_in: float | None = None
    title: float | None = None
    phrase: float | None = None

    def to_json(self) -> dict:
        """Every field, floats rounded to 6 places."""
        return {k: round(v, 6) if isinstance(v, float) else v
                for k, v in self.__dict__.items()}
