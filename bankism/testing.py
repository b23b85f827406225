"""``bankism.testing``: the review assertions for a project's test suite (``bankism.review.testing``)."""

from bankism.review.testing import SHOWN_COLLISIONS, assert_conflict_free, assert_max_wavefronts

__all__ = ["SHOWN_COLLISIONS", "assert_conflict_free", "assert_max_wavefronts"]
