# test_algebra.py: tessel.Layout and CuTe's operations from Python, judged on the oracle cases of
# tests/data/layout-algebra-cases.tsv by the rule of their `check` column (as tests/algebra/oracle_test.cpp).
import collections

import pytest

import tessel
from conftest import DATA


def split_call(expr):
    """`name(arg,arg)` -> (name, [arg text]), commas inside (), <> left alone."""
    name, rest = expr.split("(", 1)
    assert rest.endswith(")")
    args, depth, cur = [], 0, ""
    for ch in rest[:-1]:
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += ch
    args.append(cur)
    return name, args


def argument(text):
    if text.lstrip("-").isdigit():
        return int(text)
    if text.startswith("<"):
        return text  # a by-mode tiler in CuTe notation
    return tessel.Layout(text)


def values(layout):
    return [layout(i) for i in range(layout.size())]


def same_function(r, e):
    return r.size() == e.size() and values(r) == values(e)


def same_modes(r, e):
    return r.rank() == e.rank() and all(same_function(r[i], e[i]) for i in range(r.rank()))


def load_cases():
    cases = []
    for n, line in enumerate((DATA / "layout-algebra-cases.tsv").read_text().splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        fields = (line.split("\t") + [""] * 4)[:4]
        cases.append((n, *fields))
    return cases


CASES = load_cases()


def test_every_kind_of_case_is_there():
    assert len(CASES) == 325
    assert {c[1] for c in CASES} == {"exact", "func", "modes", "compose", "leftinv", "tv"}


@pytest.mark.parametrize("line,check,expr,expected,arg", CASES, ids=[f"line{c[0]}" for c in CASES])
def test_oracle(line, check, expr, expected, arg):
    name, texts = split_call(expr)
    r = getattr(tessel, name)(*[argument(t) for t in texts])
    if check == "exact":
        assert str(r) == expected
    elif check == "func":
        assert same_function(r, tessel.Layout(expected))
    elif check == "modes":
        assert same_modes(r, tessel.Layout(expected))
    elif check == "compose":
        a, b = (tessel.Layout(t) for t in arg.split(" "))
        assert r.size() == b.size()
        assert all(r(i) == a(b(i)) for i in range(b.size()))
    elif check == "leftinv":
        a = tessel.Layout(arg)
        assert all(r(a(i)) == i for i in range(a.size()))
    elif check == "tv":
        assert str(r).split(" ")[0] == arg
        assert same_modes(r.layout, tessel.Layout(expected))
    else:
        pytest.fail(f"unknown check {check}")


def test_construction_and_queries():
    a = tessel.Layout("(4,8):(8,1)")
    b = tessel.Layout((4, 8), (8, 1))
    assert a == b
    assert str(a) == "(4,8):(8,1)"
    assert repr(a) == 'Layout("(4,8):(8,1)")'
    assert tessel.Layout((4, 8)) == tessel.Layout("(4,8):(1,4)")  # compact column-major
    assert tessel.Layout([2, [3, 4]], [1, [2, 6]]).shape == (2, (3, 4))
    assert a.shape == (4, 8) and a.stride == (8, 1)
    assert (a.size(), a.cosize(), a.rank(), a.depth(), len(a)) == (32, 32, 2, 1, 2)
    assert (tessel.size(a), tessel.cosize(a), tessel.rank(a), tessel.depth(a)) == (32, 32, 2, 1)
    assert tessel.shape("((2,2),3):((1,2),4)") == ((2, 2), 3)
    assert tessel.stride(a) == (8, 1)
    assert a(5) == a((1, 1))
    assert str(a[1]) == "8:1"
    assert a.coalesce() == tessel.coalesce(a)
    assert a != tessel.Layout("(4,8):(1,4)")


def test_named_operations():
    assert str(tessel.coalesce("(2,(1,6)):(1,(6,2))")) == "12:1"
    assert str(tessel.composition("(6,2):(8,2)", "(4,3):(3,1)")) == "((2,2),3):((24,2),8)"
    assert str(tessel.complement("4:2", 24)) == "(2,3):(1,8)"
    assert str(tessel.zipped_divide("(8,8):(1,8)", (2, 4))) == "((2,4),(4,2)):((1,8),(2,32))"
    assert str(tessel.logical_divide("(8,8):(1,8)", "<2:1,4:1>")) == "((2,4),(4,2)):((1,2),(8,32))"
    assert str(tessel.logical_divide("(8,8):(1,8)", (tessel.Layout("2:1"), tessel.Layout("4:1")))) == \
        "((2,4),(4,2)):((1,2),(8,32))"
    assert str(tessel.right_inverse("(4,2):(2,1)")) == "(2,4):(4,1)"
    assert str(tessel.left_inverse("(4,2):(2,1)")) == "(2,4):(4,1)"
    assert tessel.blocked_product("(2,2):(1,2)", "(2,3):(1,2)").size() == 24
    assert tessel.raked_product("(2,2):(1,2)", "(2,3):(1,2)").size() == 24
    assert tessel.logical_product("(2,2):(1,2)", "3:1").size() == 12
    tv = tessel.make_layout_tv("(4,8):(8,1)", "(2,1):(1,0)")
    assert tv.tiler == (8, 8)
    assert str(tv) == tessel.calculate("make_layout_tv((4,8):(8,1),(2,1):(1,0))")


def test_pictures():
    t = tessel.Layout("(2,3):(3,1)").table()
    assert t.startswith("(2,3):(3,1)\n")
    assert "| 0 | 1 | 2 |" in t
    s = tessel.Layout("(2,3):(3,1)").svg()
    assert s.startswith("<svg") and s.rstrip().endswith("</svg>")
    tv = tessel.make_layout_tv("(4,8):(8,1)", "(2,1):(1,0)")
    assert "T0V0" in tv.table()
    assert tv.svg().startswith("<svg")


def test_errors_carry_tessels_message():
    assert issubclass(tessel.Error, RuntimeError)
    with pytest.raises(tessel.Error, match="col"):
        tessel.Layout("(4,8):(8,")
    with pytest.raises(tessel.Error, match="not congruent"):
        tessel.Layout((4, 8), (1,))
    with pytest.raises(tessel.Error, match="composition"):
        tessel.composition("(4,4):(4,1)", "3:3")
    with pytest.raises(tessel.Error, match="stride"):
        tessel.Layout("(4,8):(8,1)", (1, 4))
    with pytest.raises(tessel.Error):
        tessel.Layout("(2,2,2):(1,2,4)").table()  # rank 3 has no picture
    with pytest.raises(TypeError):
        tessel.Layout(4.5)
    with pytest.raises(TypeError):
        tessel.coalesce(42)
    with pytest.raises(IndexError):
        tessel.Layout("(4,8):(8,1)")[2]
