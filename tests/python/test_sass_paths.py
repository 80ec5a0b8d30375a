# SPDX-License-Identifier: Apache-2.0
"""tests/static/sass_paths.py: the hot path of a kernel's SASS, which the static budgets count."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "static"))
import sass_paths  # noqa: E402

STORE = r"\bSTG"


def listing(text):
    """[(address, instruction)] of SASS lines, one instruction each, 16 bytes apart."""
    return [(16 * i, line.strip()) for i, line in enumerate(text.strip().splitlines())]


# A checked loop: a check that branches to a report (which claims it with a compare-and-swap and
# exits), a load the code may branch around, and a store per iteration.
CHECKED = listing("""
MOV R0, RZ
ISETP.GE.U32.AND P0, PT, R0, R2, PT
@P0 BRA 0xa0
ISETP.NE.AND P1, PT, R5, RZ, PT
@P1 BRA 0x60
LDG.E R6, desc[UR4][R8.64]
STG.E desc[UR4][R8.64], R6
IADD3 R0, R0, 0x1, RZ
@!P0 BRA 0x10
EXIT
ATOMG.E.CAS.STRONG.GPU PT, R4, [R2], R4, R5
EXIT
""")


def test_a_loop_counts_its_checks_and_the_access_it_may_branch_around():
    # The path through the load (one more access) wins over the branch around it.
    assert sass_paths.innermost_loop(CHECKED, STORE, 1) == (8.0, 1.0, False)
    assert sass_paths.kernel_hot_path(CHECKED, STORE, 1) == (8.0, "loop")


def test_an_unrolled_pass_is_divided_by_its_iterations():
    unrolled = listing("""
    MOV R0, RZ
    STG.E desc[UR4][R8.64], R6
    STG.E desc[UR4][R8.64+0x4], R6
    IADD3 R0, R0, 0x2, RZ
    @!P0 BRA 0x10
    EXIT
    """)
    assert sass_paths.innermost_loop(unrolled, STORE, 1) == (2.0, 2.0, False)


def test_a_kernel_without_a_loop_counts_its_path_to_the_exit_that_does_its_work():
    straight = listing("""
    ISETP.NE.AND P0, PT, R0, RZ, PT
    @P0 EXIT
    IADD3 R1, R1, 0x1, RZ
    STG.E desc[UR4][R8.64], R1
    EXIT
    """)
    # Not the early exit (no store on it): the path that stores.
    assert sass_paths.kernel_hot_path(straight, STORE, 1) == (5, "no loop")
    assert sass_paths.kernel_hot_path(straight, r"\bNOTHERE", 1) is None


def test_report_code_past_a_claim_is_not_the_kernels_loop():
    report_loop = listing("""
    @P0 BRA 0x30
    STG.E desc[UR4][R8.64], R1
    EXIT
    ATOMG.E.CAS.STRONG.GPU PT, R4, [R2], R4, R5
    STG.E desc[UR4][R2.64], R4
    @P1 BRA 0x40
    EXIT
    """)
    assert sass_paths.innermost_loop(report_loop, STORE, 1) is None


def test_a_jump_back_from_a_block_placed_after_the_code_it_returns_to_is_no_loop():
    # A divergent shuffle's collective fallback (0x80), placed at the end: entered from the
    # BRA.DIV at 0x40 and from 0x60, it jumps back to 0x50, which does not come before it on
    # every path. The loop is 0x10 to 0x30.
    code = listing("""
    MOV R1, RZ
    FADD R1, R1, R2
    ISETP.NE.AND P0, PT, R0, RZ, PT
    @P0 BRA 0x10
    BRA.DIV UR4, 0x80
    FADD R1, R1, R3
    @P1 BRA 0x80
    EXIT
    FADD R1, R1, R4
    FADD R1, R1, R5
    BRA 0x50
    """)
    assert sass_paths.innermost_loop(code, r"\bFADD", 1) == (3.0, 1.0, False)
