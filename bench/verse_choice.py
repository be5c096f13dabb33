"""The language model's verse choice (bot/pastor/verse_choice.py), measured blind on a graded situation set.

    python bench/verse_choice.py prompts SITUATIONS.jsonl --out PROMPTS.jsonl
    python bench/verse_choice.py choices SITUATIONS.jsonl --replies REPLIES.jsonl --out CHOICES.jsonl
    python bench/verse_choice.py report CHOICES.jsonl GRADED.jsonl [...]

bench/verse-choice/tests-30-37.jsonl keeps one kind of model's replies and choices on the aptness tests 30 to 37;
bench/verse-choice/shown-12-tests-36-37.jsonl, the same kind shown 12 candidates (a variant measured and left).
docs/evaluation.md says which model and what the judges found.

``prompts`` writes, for each life told, the exact messages the bot sends the model (the search the bot runs, its
sources, `choice_messages`); any model answers them ({"id", "reply"} per line). ``choices`` reads the replies with
the bot's own parsing (`chosen_numbers`) and keeps each situation's three chosen verses beside the three the bot
shows without a model ({"id", "q", "verses", "ranker"}: a situation file `grade_pools.py --proposed` pools for the
judges). ``report`` gives apt@3 / first-apt / harm@3 of both against each set's blind grades, and over all of them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.pastor.pipeline import PastorConfig
from bot.pastor.shown import sources_of
from bot.pastor.verse_choice import SHOWN, choice_messages, chosen_numbers
from retrieval.__main__ import _config, ready_retriever
from retrieval.evaluation import SituationReport, load_items
from retrieval.results import Status


def _situations(path: Path) -> list[dict]:
    """{"id", "q"} once per situation, from a situation file or a file of graded pairs."""
    rows = load_items(path)
    return [{"id": r["id"], "q": r["q"]} for r in rows if r.get("q") and r.get("kind", "situation") == "situation"]


def candidates(retriever, q: str, shown: int = SHOWN) -> tuple[list, list[str]] | None:
    """(the sources the model is shown, the three verses shown without a model), or None when the bot would not
    ask (not a life told, or nothing found). ``shown`` other than SHOWN measures a variant."""
    config = PastorConfig(max_sources=max(shown, PastorConfig.max_sources))
    result = retriever.search(q, 10, None)
    if result.status != Status.OK or result.mode != "cuidado":
        return None
    sources = sources_of(result, config.max_reference_verses, config.max_sources)
    return sources[:shown], [hit.id for hit in result.hits[:3]]


def cmd_prompts(args) -> int:
    retriever = ready_retriever(_config(argparse.Namespace()), build=False)
    with args.out.open("w", encoding="utf-8") as out:
        for item in _situations(args.situations):
            found = candidates(retriever, item["q"], args.shown)
            if found is None or len(found[0]) < 2:
                continue
            messages = choice_messages(item["q"], found[0])
            out.write(json.dumps({"id": item["id"], "system": messages[0].content, "user": messages[1].content},
                                 ensure_ascii=False) + "\n")
    return 0


def cmd_choices(args) -> int:
    retriever = ready_retriever(_config(argparse.Namespace()), build=False)
    replies = {r["id"]: r["reply"] for r in load_items(args.replies)}
    with args.out.open("w", encoding="utf-8") as out:
        for item in _situations(args.situations):
            found = candidates(retriever, item["q"], args.shown)
            if found is None or item["id"] not in replies:
                continue
            shown, ranker = found
            numbers = chosen_numbers(replies[item["id"]], len(shown), [s.reference for s in shown])
            chosen = [shown[n - 1].id for n in numbers] if numbers else []
            chosen += [s.id for s in shown if s.id not in chosen]
            out.write(json.dumps({"id": item["id"], "q": item["q"], "reply": replies[item["id"]],
                                  "verses": chosen[:3], "ranker": ranker, "parsed": bool(numbers)},
                                 ensure_ascii=False) + "\n")
    return 0


def shown_scores(rows: list[dict], grades: dict[str, dict[str, int]], key: str) -> SituationReport:
    """The aptness report of each row's three verses under ``key`` ("ranker" or "verses"), as the eval makes it."""
    report = SituationReport()
    for row in rows:
        shown = row[key][:3]
        report.add_shown(row["id"], shown, [grades.get(row["id"], {}).get(v) for v in shown])
    return report


def cmd_report(args) -> int:
    choices = load_items(args.choices)
    every: dict[str, dict[str, int]] = {}
    for path in args.graded:
        grades: dict[str, dict[str, int]] = {}
        for row in load_items(path):
            if "grades" in row:
                grades.setdefault(row["id"], {}).update(row["grades"])
        every.update(grades)
        _print(path.name, [row for row in choices if row["id"] in grades], grades)
    if len(args.graded) > 1:
        _print("todos", [row for row in choices if row["id"] in every], every)
    return 0


def _print(name: str, rows: list[dict], grades: dict[str, dict[str, int]]) -> None:
    print(name)
    for key, label in (("ranker", "sem modelo (os 3 primeiros)"), ("verses", "escolha do modelo")):
        r = shown_scores(rows, grades, key)
        n = len(r.apt) or 1
        print(f"  {label:<28} apt@3 {sum(r.apt) / n:.2f}  first-apt {sum(r.first) / n:.2f}  "
              f"harm@3 {sum(r.harm) / n:.2f}  (n={len(r.apt)}, sem nota: {len(r.unjudged)})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    prompts = sub.add_parser("prompts")
    prompts.add_argument("situations", type=Path)
    prompts.add_argument("--out", type=Path, required=True)
    prompts.add_argument("--shown", type=int, default=SHOWN, help="candidates shown (a variant to measure)")
    choices = sub.add_parser("choices")
    choices.add_argument("situations", type=Path)
    choices.add_argument("--replies", type=Path, required=True)
    choices.add_argument("--out", type=Path, required=True)
    choices.add_argument("--shown", type=int, default=SHOWN)
    report = sub.add_parser("report")
    report.add_argument("choices", type=Path)
    report.add_argument("graded", type=Path, nargs="+")
    args = parser.parse_args(argv)
    return {"prompts": cmd_prompts, "choices": cmd_choices, "report": cmd_report}[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())
