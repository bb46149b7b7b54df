# conftest.py: shared fixtures of the Python tests: a random generator seeded fresh each run (the
# seed printed, TESSEL_SEED=N replays one), and the repository's paths.
import os
import pathlib
import random

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


@pytest.fixture
def rng():
    import numpy as np

    seed = int(os.environ.get("TESSEL_SEED", random.SystemRandom().randrange(2**32)))
    print(f"seed {seed} (TESSEL_SEED={seed} replays it)")
    return np.random.default_rng(seed)
