"""Shared-pipe cycles of one thread block and of a whole launch, the layout as given beside its ideal.

The shared-memory pipe of an SM serves one wavefront per cycle (docs/rules.md, "Cycles", measured), so
a launch takes at least the pipe cycles of its busiest SM: ``ceil(blocks / SMs)`` blocks' worth, when
every block costs what the simulated one does. That is a lower bound on the launch's time, the shared
pipe alone; what the kernel's other work adds, or hides, takes the launch's counters
(`bankism analyze` on a recorded trace: docs/time.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bankism.arch import get_arch


@dataclass(frozen=True)
class PipeCycles:
    """Shared-pipe cycles of a block (``block_cycles``, ``ideal_block_cycles``) and of a launch of
    ``blocks`` like it (None: the launch is not known, only the block is reported)."""

    block_cycles: float
    ideal_block_cycles: float
    blocks: int | None
    arch: str

    @property
    def sm_count(self) -> int | None:
        return get_arch(self.arch).sm_count

    @property
    def blocks_per_sm(self) -> int | None:
        """Blocks the busiest SM serves: ceil(blocks / SMs)."""
        if self.sm_count is None or self.blocks is None:
            return None
        return math.ceil(self.blocks / self.sm_count)

    @property
    def launch_cycles(self) -> float | None:
        """Pipe cycles of the busiest SM over the launch: a lower bound on the launch's SM cycles."""
        return None if self.blocks_per_sm is None else self.blocks_per_sm * self.block_cycles

    @property
    def ideal_launch_cycles(self) -> float | None:
        return None if self.blocks_per_sm is None else self.blocks_per_sm * self.ideal_block_cycles

    @property
    def removable_block_cycles(self) -> float:
        """The block's pipe cycles the conflicts take (what a conflict-free layout removes)."""
        return self.block_cycles - self.ideal_block_cycles

    def launch_ns(self, cycles: float | None) -> float | None:
        """``cycles`` of the busiest SM in nanoseconds at the GPU's top SM clock."""
        clock = get_arch(self.arch).max_clock_hz
        return None if cycles is None or not clock else cycles / clock * 1e9

    @property
    def modelled(self) -> bool:
        """False when some instruction has no measured cycle model (its cycles are NaN)."""
        return not math.isnan(self.block_cycles)

    def to_json(self) -> dict[str, object] | None:
        """The ``shared_pipe`` block of explain's and check's JSON (None: cycles not modelled)."""
        if not self.modelled:
            return None
        return {
            "block_cycles": self.block_cycles, "ideal_block_cycles": self.ideal_block_cycles,
            "blocks": self.blocks, "sm_count": self.sm_count, "blocks_per_sm": self.blocks_per_sm,
            "launch_cycles": self.launch_cycles, "ideal_launch_cycles": self.ideal_launch_cycles,
            "launch_ns": self.launch_ns(self.launch_cycles),
            "ideal_launch_ns": self.launch_ns(self.ideal_launch_cycles),
            "clock_hz": get_arch(self.arch).max_clock_hz,
            "bound": "lower bound on time: the shared-memory pipe alone",
        }

    def describe(self) -> str:
        """One line: the block and the launch, as given and ideal, labelled as the lower bound it is."""
        if not self.modelled:
            return "shared pipe: cycles not modelled for some of these instructions"
        block, ideal = self.block_cycles, self.ideal_block_cycles
        text = f"shared pipe: {block:,.0f} cycles per block (ideal {ideal:,.0f})"
        if self.launch_cycles is not None:
            text += (f"; {self.blocks:,} blocks on {self.sm_count} SMs: at least {self.launch_cycles:,.0f} "
                     f"cycles on the busiest SM (ideal {self.ideal_launch_cycles:,.0f})")
            ns, ideal_ns = self.launch_ns(self.launch_cycles), self.launch_ns(self.ideal_launch_cycles)
            if ns is not None:
                text += f", {ns / 1e3:,.2f} µs (ideal {ideal_ns / 1e3:,.2f} µs) at {self.clock_text}"
        return text + " — a lower bound on time (the shared pipe alone)"

    @property
    def clock_text(self) -> str:
        clock = get_arch(self.arch).max_clock_hz
        return f"{clock / 1e9:.2f} GHz" if clock else "?"
