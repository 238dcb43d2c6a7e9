"""Compare: many Measurements printed as one table per label, in the layout torch.utils.benchmark prints.

A table's rows are (thread count, env, sub_label or stmt), grouped by thread count; its columns are the
descriptions. Every number in a table shares one unit, the one that suits its fastest measurement.
"""
import enum
import math

from . import common

__all__ = ["Colorize", "Compare"]


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


_RESET = "\033[0m"
# How a time compares with the best time it is judged against -> the ANSI style its cell gets; first match wins.
_STYLES = (
    (lambda t, best: t <= best * 1.01 or t <= best + 100e-9, "\033[92m\033[1m"),  # best (within 1% or 100 ns)
    (lambda t, best: t <= best * 1.1, "\033[34m\033[1m"),                          # good
    (lambda t, best: t >= best * 5, "\033[31m\033[1m"),                            # very bad
    (lambda t, best: t >= best * 2, "\033[2m\033[91m"),                            # bad
)
_HIGH_VARIANCE_NOTE = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"


def _paint(cell, t, best):
    for judge, style in _STYLES:
        if judge(t, best):
            return f"{style}{cell}{_RESET}{_RESET}"
    return cell


def _number_format(cells, scale, trim, highlight):
    """Formatter for one column's cells (a Measurement or None each): right-aligned numbers of one width and
    decimals (as many as its least precise measurement supports when trimming, else one), and room for a
    variance flag when highlighting and some cell of the column has warnings."""
    present = [m for m in cells if m is not None]
    int_digits = [math.ceil(math.log10(m.median / scale)) for m in present]
    decimals = min(max(m.significant_figures - d, 0) for m, d in zip(present, int_digits)) if trim else 1
    width = max(int_digits) + decimals + (1 if decimals else 0)
    flag_width = 7 if highlight and any(m.has_warnings for m in present) else 0

    def show(value, flag=""):
        return f"{value:>{width}.{decimals}f}{flag:>{flag_width}}"

    blank = " " * len(show(1.0))

    def cell(m):
        if m is None:
            return blank
        value = m.median / scale
        if trim:
            value = common.trim_sigfig(value, m.significant_figures)
        flag = f" (! {m.iqr / m.median * 100:.0f}%)" if flag_width and m.has_warnings else ""
        return show(value, flag)

    return cell


def _render(results, colorize, trim, highlight):
    """One label's table, as text."""
    unit, scale = common.select_unit(min(m.median for m in results))

    def row_of(m):
        return m.num_threads, m.env, m.as_row_name

    # Appearance order, then a stable sort on (threads, env) so that each thread count's rows are together.
    row_keys = sorted(common.ordered_unique(map(row_of, results)), key=lambda key: key[:2])
    col_keys = common.ordered_unique(m.description for m in results)
    by_place = {(row_of(m), m.description): m for m in results}
    grid = [[by_place.get((r, c)) for c in col_keys] for r in row_keys]

    # Thread-count groups: the group index of each row; column-wise colouring compares within a group.
    group, last_threads = [], None
    for threads, _, _ in row_keys:
        group.append((group[-1] if group else -1) + (threads != last_threads))
        last_threads = threads

    formats = [_number_format([row[j] for row in grid], scale, trim, highlight) for j in range(len(col_keys))]

    envs = {m.env for m in results}
    env_width = max(map(len, envs)) + 4 if len(envs) > 1 else 4
    text_rows, shown_env = [["", *col_keys]], ""
    for i, ((_, env, name), row) in enumerate(zip(row_keys, grid)):
        if i == 0 or group[i] != group[i - 1]:
            shown_env = ""
        env_tag = f"({env})" if len(envs) > 1 and env != shown_env else ""
        shown_env = env
        text_rows.append([f"  {env_tag.ljust(env_width)}{name}", *(f(m) for f, m in zip(formats, row))])
    widths = [max(len(r[j]) for r in text_rows) for j in range(len(text_rows[0]))]

    header = "  |  ".join(s.center(w) for s, w in zip(text_rows[0], widths))
    lines = []
    for i, (row, texts) in enumerate(zip(grid, text_rows[1:])):
        if i == 0 or group[i] != group[i - 1]:
            lines.append(f"{row_keys[i][0]} threads: ".ljust(len(header), "-"))
        if colorize is Colorize.ROWWISE:
            best = [min(m.median for m in row if m is not None)] * len(row)
        elif colorize is Colorize.COLUMNWISE:
            best = [min((grid[k][j].median for k in range(len(grid))
                         if group[k] == group[i] and grid[k][j] is not None), default=None)
                    for j in range(len(row))]
        cells = [texts[0].ljust(widths[0])]
        for j, m in enumerate(row):
            cell = texts[j + 1].center(widths[j + 1])
            if colorize is not Colorize.NONE and m is not None and best[j] is not None:
                cell = _paint(cell, m.median, best[j])
            cells.append(cell)
        lines.append("  |  ".join(cells))

    title = f" {results[0].label or ''} ".center(len(header) - 2, "-")
    note = _HIGH_VARIANCE_NOTE if highlight and any(m.has_warnings for m in results) else ""
    body = "\n".join([f"[{title}]", header, *lines])
    return f"{body}\n\nTimes are in {common.unit_to_english(unit)}s ({unit}).\n{note}"


class Compare:
    """Print many :class:`Measurement` s as tables: one per ``label``, a row per ``sub_label`` (or statement)
    within each ``num_threads`` group, a column per ``description``. Replicates of one task are merged first.
    ``str(compare)`` is the text; :meth:`print` prints it."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        # What _render takes besides the results: colouring, trimming, highlighting.
        self._style = {"colorize": Colorize.NONE, "trim": False, "highlight": False}

    def __str__(self):
        return "\n".join(self._render())

    def extend_results(self, results):
        """Add more measurements (each must be a ``Measurement``)."""
        wrong = next((r for r in results if not isinstance(r, common.Measurement)), None)
        if wrong is not None:
            raise ValueError(f"Expected an instance of `Measurement`, got {type(wrong)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        """Print each number only to the significant figures its spread supports."""
        self._style["trim"] = True

    def colorize(self, rowwise=False):
        """Colour each time against the best of its column within its thread group (or of its row)."""
        self._style["colorize"] = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        """Flag high-variance measurements with their IQR / median."""
        self._style["highlight"] = True

    def print(self):
        print(str(self))

    def _render(self):
        by_label = {}
        for m in common.Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        return [_render(group, **self._style) for group in by_label.values()]
