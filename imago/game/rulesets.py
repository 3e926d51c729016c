"""KataGo's rules, as an analysis query or GTP's ``kata-set-rules`` names
them (and KGS's, as ``kgs-rules`` does), read and compared with what imago
plays.

Rules are a shorthand (``"tromp-taylor"``, ``"chinese"``, ``"japanese"``,
...) or an object of rule options (``ko``, ``scoring``, ``tax``,
``suicide``, ``hasButton``, ``whiteHandicapBonus``, ``friendlyPassOk``,
``komi``). imago's board plays one rule set: positional superko, no
suicide, no button. Rules that differ are played and analysed as those
anyway, with a warning that says what differs (:func:`differences_warning`).
The komi, the scoring (territory as an area count less the stones each side
put on the board, with a seki tax) and the white handicap bonus (as extra
komi: under area scoring they are the same) are honoured, by GTP and the
analysis engine. This module imports nothing of imago.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Optional

AREA, TERRITORY = "AREA", "TERRITORY"
KO_RULES = ("SIMPLE", "POSITIONAL", "SITUATIONAL", "SPIGHT")
SCORINGS = (AREA, TERRITORY)
TAXES = ("NONE", "SEKI", "ALL")
HANDICAP_BONUSES = ("0", "N", "N-1")
MAX_KOMI = 150.0


@dataclass(frozen=True)
class KataRules:
    """One of KataGo's rule sets. ``komi`` is the rule set's own default
    komi (a query's ``komi`` field overrides it). ``friendly_pass_ok``
    (KataGo's ``friendlyPassOk``): whether a player may pass with the
    opponent's dead stones still on the board, as people do, agreeing on
    them at the count; without it (Tromp-Taylor, the Computer Go Server)
    two passes end the game with every stone standing counted alive, so
    dead stones must be captured first."""

    ko: str = "POSITIONAL"
    scoring: str = AREA
    tax: str = "NONE"
    suicide: bool = True
    button: bool = False
    handicap_bonus: str = "0"
    komi: float = 7.5
    friendly_pass_ok: bool = False


_TT = KataRules()


def _human(**options: Any) -> KataRules:
    """A rule set people play: dead stones agreed on at the count."""
    return KataRules(friendly_pass_ok=True, **options)


# Shorthands, written without case, spaces, dashes, underscores or slashes
# (records of the Computer Go Server name theirs RU[Tromp/Taylor]).
SHORTHANDS: dict[str, KataRules] = {
    "tromptaylor": _TT,
    "goe": _TT, "ing": _TT,
    "chinese": _human(ko="SIMPLE", suicide=False, handicap_bonus="N"),
    "chineseogs": _human(suicide=False, handicap_bonus="N"),
    "chinesekgs": _human(suicide=False, handicap_bonus="N"),
    "japanese": _human(ko="SIMPLE", scoring=TERRITORY, tax="SEKI", suicide=False, komi=6.5),
    "korean": _human(ko="SIMPLE", scoring=TERRITORY, tax="SEKI", suicide=False, komi=6.5),
    "aga": _human(ko="SITUATIONAL", suicide=False, handicap_bonus="N-1"),
    "bga": _human(ko="SITUATIONAL", suicide=False, handicap_bonus="N-1"),
    "french": _human(ko="SITUATIONAL", suicide=False, handicap_bonus="N-1"),
    "agabutton": _human(ko="SITUATIONAL", suicide=False, button=True, handicap_bonus="N-1",
                        komi=7.0),
    "newzealand": _human(ko="SITUATIONAL"),
    "nz": _human(ko="SITUATIONAL"),
    "stonescoring": _human(ko="SIMPLE", tax="ALL", suicide=False),
    "ancientarea": _human(ko="SIMPLE", tax="ALL", suicide=False),
    "ancientterritory": _human(ko="SIMPLE", scoring=TERRITORY, tax="ALL", suicide=False,
                               komi=6.5),
}


def parse_rules(value: Any) -> KataRules:
    """Read a query's ``rules`` (a shorthand or an object of options).

    Raises ValueError with a reason a user can act on."""
    if isinstance(value, str):
        key = "".join(ch for ch in value.strip().lower() if ch not in " -_/")
        rules = SHORTHANDS.get(key)
        if rules is None:
            raise ValueError("unknown rules; use one of tromp-taylor, chinese, chinese-ogs, "
                             "chinese-kgs, japanese, korean, aga, new-zealand, stone-scoring, "
                             "or an object of rule options")
        return rules
    if isinstance(value, dict):
        return _rules_object(value)
    raise ValueError("must be a rules name such as \"chinese\" or \"tromp-taylor\", "
                     "or an object of rule options")


def rules_text_value(text: str) -> Any:
    """What a command line's rules text stands for: a KataGo rules name, or
    (text starting with ``{``) its object of rule options as JSON, checked
    by :func:`parse_rules` and returned as given (an analysis query's
    ``rules``). Raises ValueError with a reason a user can act on."""
    value: Any = text.strip()
    if value.startswith("{"):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as error:
            raise ValueError(f"not a JSON object of rule options: {error}") from None
    parse_rules(value)
    return value


def _rules_object(options: dict) -> KataRules:
    """The object form: KataGo starts from Tromp-Taylor and changes what is
    named; an unknown option is an error, as in KataGo."""
    rules = _TT
    tax_given = komi_given = False
    for key, value in options.items():
        if key == "ko":
            rules = replace(rules, ko=_choice(key, value, KO_RULES))
        elif key in ("scoring", "score"):
            rules = replace(rules, scoring=_choice(key, value, SCORINGS))
        elif key == "tax":
            rules = replace(rules, tax=_choice(key, value, TAXES))
            tax_given = True
        elif key == "suicide":
            rules = replace(rules, suicide=_flag(key, value))
        elif key == "hasButton":
            rules = replace(rules, button=_flag(key, value))
        elif key == "friendlyPassOk":
            rules = replace(rules, friendly_pass_ok=_flag(key, value))
        elif key == "whiteHandicapBonus":
            rules = replace(rules, handicap_bonus=_choice(key, value, HANDICAP_BONUSES))
        elif key == "komi":
            rules = replace(rules, komi=check_komi(value))
            komi_given = True
        else:
            raise ValueError(f"unknown rules option {str(key)[:40]!r}")
    if not tax_given and rules.scoring == TERRITORY:
        rules = replace(rules, tax="SEKI")
    if not komi_given:
        if rules.scoring == TERRITORY:
            rules = replace(rules, komi=6.5)
        elif rules.button:
            rules = replace(rules, komi=7.0)
    return rules


def _choice(key: str, value: Any, choices: tuple[str, ...]) -> str:
    if isinstance(value, str) and value.strip().upper() in choices:
        return value.strip().upper()
    raise ValueError(f"rules option {key} must be one of {', '.join(choices)}")


def _flag(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError(f"rules option {key} must be true or false")


def check_komi(value: Any) -> float:
    """A komi as KataGo takes it: a finite number, an integer or half-integer
    from -150 to 150. Raises ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not -MAX_KOMI <= value <= MAX_KOMI or (value * 2) % 1 != 0:
        raise ValueError("must be an integer or half-integer from -150 to 150")
    return float(value)


def parse_handicap_bonus(value: Any) -> str:
    """A query's ``whiteHandicapBonus``: ``"0"``, ``"N"`` or ``"N-1"``."""
    if isinstance(value, str) and value.strip().upper() in HANDICAP_BONUSES:
        return value.strip().upper()
    raise ValueError('must be "0", "N" or "N-1"')


def handicap_bonus_points(rule: str, handicap_stones: int) -> int:
    """Points White gets for ``handicap_stones`` under a bonus rule (KataGo:
    N, or N-1 for two stones or more)."""
    if rule == "N":
        return handicap_stones
    if rule == "N-1":
        return handicap_stones - 1 if handicap_stones > 1 else 0
    return 0


def differences(rules: KataRules) -> list[str]:
    """What imago cannot play exactly of ``rules`` (empty when nothing).
    Both scorings it counts, territory as an area count less the stones
    each side put on the board and with a seki tax (the eyes of a seki
    count for nobody, ``tax`` SEKI), area without one."""
    found = []
    if rules.ko != "POSITIONAL":
        found.append(f"{rules.ko.lower()} ko")
    if rules.suicide:
        found.append("suicide allowed")
    seki_tax = "SEKI" if rules.scoring == TERRITORY else "NONE"
    if rules.tax != seki_tax:
        found.append(f"tax {rules.tax.lower()} ({rules.scoring.lower()} scoring here has "
                     f"tax {seki_tax.lower()})")
    if rules.button:
        found.append("a button")
    return found


def differences_warning(rules: KataRules, doing: str = "analyses this position so"
                        ) -> Optional[str]:
    """The warning for rules imago plays as its own (``doing`` says what
    it does so), or None. Komi, white handicap bonus (as extra komi) and
    the scoring are honoured."""
    found = differences(rules)
    if not found:
        return None
    return (f"imago plays positional superko and no suicide, and {doing}, "
            "not with " + ", ".join(found))


KGS_RULES = ("japanese", "chinese", "aga", "new_zealand")
"""KGS's rule names (GTP ``kgs-rules``, sent by kgsGtp): shorthands
:func:`parse_rules` reads as they are."""

IMAGO_RULES = {"ko": "POSITIONAL", "scoring": "AREA", "tax": "NONE", "suicide": False,
               "hasButton": False, "whiteHandicapBonus": "0", "friendlyPassOk": True}
"""The rules imago plays (and records, as go.py's games), in KataGo's rules
object: area scoring, positional superko, no suicide, no points for
handicap stones beyond the komi, and dead stones removed at the count
(imago's, :func:`imago.game.count`) without being captured. A record
played under Chinese rules with a handicap bonus (KGS) shows White N points
worse off in every position; the losses, which compare positions, are the
same."""

def imago_rules(scoring: str, handicap_bonus: str, friendly_pass_ok: bool) -> dict:
    """imago's own rules (:data:`IMAGO_RULES`) with a scoring (``AREA`` or
    ``TERRITORY``; territory with its seki tax, as imago counts it), a
    white handicap bonus and a clean-up (``friendlyPassOk``): the rules it
    plays, as KataGo's rules object."""
    return {**IMAGO_RULES, "scoring": scoring,
            "tax": "SEKI" if scoring == TERRITORY else "NONE",
            "whiteHandicapBonus": handicap_bonus, "friendlyPassOk": friendly_pass_ok}


def imago_rules_word(rules: Optional[KataRules] = None) -> str:
    """GTP's ``kata-set-rules`` word for imago's own rules
    (:data:`IMAGO_RULES`) with the scoring, white handicap bonus and
    clean-up (``friendlyPassOk``) of ``rules`` (:func:`imago_rules`): what
    another engine is told to play so that imago's board can referee its
    moves (KataGo's ``tromp-taylor`` allows suicide, which imago's board
    forbids)."""
    if rules is None:
        return json.dumps(IMAGO_RULES, separators=(",", ":"))
    return json.dumps(imago_rules(rules.scoring, rules.handicap_bonus, rules.friendly_pass_ok),
                      separators=(",", ":"))


IMAGO_RULES_WORD = imago_rules_word()
""":data:`IMAGO_RULES` as GTP's ``kata-set-rules`` takes them: one word,
for telling another engine (KataGo, an imago) to play and count as imago
does."""

RULES_NAMES_HELP = (
    "KataGo's names: japanese and korean count by territory (each side's stones "
    "played count against it, a seki's eyes for nobody), chinese and aga add White's "
    "handicap bonus to the komi, tromp-taylor counts every stone standing at the end "
    "alive; or KataGo's JSON object of rule options")
"""What a ``--rules`` option takes, for the help of every command that has one."""
IMAGO_RULES_HELP = ("imago's own: area scoring, no handicap bonus, dead stones removed at "
                    "the count")
"""The rules a ``--rules`` option leaves, in its help."""
