"""The Data tab: a tool's table (sortable Qt model/view) and, for a grouped result, a bar chart.

The chart is drawn by pyqtgraph (MIT, pure Python on the Qt we already ship; about 2 MB) rather
than paint code of our own. Qt Charts was the other candidate: it needs PySide6-Addons (a further
59 MB wheel) and is deprecated since Qt 6.10 in favour of Qt Graphs, which needs Qt Quick.
pyqtgraph is imported only when the first chart is drawn (it takes most of a second).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

#: At most this many bars: a chart of 400 departments is unreadable; the table has them all.
MAX_BARS = 25


class ResultModel(QAbstractTableModel):
    """Columns and rows of a tool result, sortable by any column (numbers as numbers)."""

    def __init__(self, columns: list[str] | None = None, rows: list[list] | None = None) -> None:
        super().__init__()
        self.columns, self.rows = list(columns or []), [list(r) for r in rows or []]

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: QModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid():
            return None
        value = self.rows[index.row()][index.column()]
        if role == Qt.DisplayRole:
            if value is None:
                return ""
            if isinstance(value, float) and not math.isfinite(value):
                return str(value)  # inf, nan: as Python writes them (a division by zero upstream)
            if isinstance(value, float):
                return f"{value:,.2f}".rstrip("0").rstrip(".") if value != int(value) else f"{int(value):,}"
            if isinstance(value, int) and not isinstance(value, bool):
                return f"{value:,}"
            return str(value)
        if role == Qt.TextAlignmentRole and isinstance(value, (int, float)) and not isinstance(value, bool):
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.ToolTipRole and value is not None:
            return str(value)
        return None

    def headerData(self, section: int, orientation, role: int = Qt.DisplayRole):  # noqa: N802 - Qt API
        if role == Qt.DisplayRole and orientation == Qt.Horizontal and section < len(self.columns):
            return self.columns[section]
        if role == Qt.DisplayRole and orientation == Qt.Vertical:
            return section + 1
        return None

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        if not 0 <= column < len(self.columns):
            return  # no sort column: the rows stay in the order the tool gave
        def empty(value) -> bool:
            return value is None or (isinstance(value, float) and math.isnan(value))

        def key(row):
            value = row[column]
            # Numbers before text, so a mixed column still sorts.
            if isinstance(value, (int, float)):
                return (0, value, "")
            return (1, 0, str(value).casefold())

        self.layoutAboutToBeChanged.emit()
        filled = sorted((r for r in self.rows if not empty(r[column])), key=key, reverse=order == Qt.DescendingOrder)
        self.rows = filled + [r for r in self.rows if empty(r[column])]  # empty cells last, either way
        self.layoutChanged.emit()


class BarChart(QWidget):
    """Horizontal bars of (label, value) pairs, drawn by pyqtgraph in the window's colours."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Chart of the grouped result")
        self.setMinimumHeight(180)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel()
        self._layout.addWidget(self.title)
        self.plot = None  # the pyqtgraph PlotWidget, made on first use
        self.bars: list[tuple[str, float]] = []

    def set_data(self, title: str, bars: list[tuple[str, float]]) -> None:
        import pyqtgraph as pg

        self.bars = bars[:MAX_BARS]
        shown = f" (the first {MAX_BARS} of {len(bars)})" if len(bars) > MAX_BARS else ""
        self.title.setText(f"<b>{title}</b>{shown}")
        if self.plot is None:
            self.plot = pg.PlotWidget()
            self.plot.setMenuEnabled(False)
            self.plot.setMouseEnabled(x=False, y=False)
            self.plot.hideButtons()
            self.plot.invertY(True)  # the first row on top, as in the table
            self._layout.addWidget(self.plot, 1)
        palette = self.palette()
        text, bar = palette.color(QPalette.WindowText), palette.color(QPalette.Highlight)
        self.plot.clear()
        self.plot.setBackground(palette.color(QPalette.Base))
        for side in ("left", "bottom"):
            axis = self.plot.getAxis(side)
            axis.setPen(pg.mkPen(text))
            axis.setTextPen(pg.mkPen(text))
        values = [v for _, v in self.bars]
        self.item = pg.BarGraphItem(x0=0, y=list(range(len(values))), height=0.6, width=values,
                                    brush=pg.mkBrush(bar), pen=pg.mkPen(bar))
        self.plot.addItem(self.item)
        self.plot.getAxis("left").setTicks([[(i, label[:28]) for i, (label, _) in enumerate(self.bars)]])
        self.plot.getAxis("bottom").setGrid(60)
        self.plot.setYRange(-0.6, len(values) - 0.4, padding=0)
        self.plot.enableAutoRange(axis="x")
        # Tall enough to read each bar, but never squeezing the table out of the tab.
        self.setMinimumHeight(min(80 + 26 * len(values), 320))


class DataView(QWidget):
    """What the last data look-up returned: the table, and a chart when the result is grouped."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        self.table = QTableView()
        self.table.setAccessibleName("Data table")
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.model = ResultModel()
        self.table.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)
        self.table.setModel(self.model)
        layout.addWidget(self.table, 1)
        self.chart = BarChart()
        self.chart.hide()
        layout.addWidget(self.chart)

    def show_result(self, data: dict) -> None:
        cols, rows = data["columns"], data["rows"]
        self.model = ResultModel(cols, rows)
        # Until the person clicks a header, the rows keep the tool's order (a "top 5" stays on top).
        self.table.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)
        self.table.setModel(self.model)
        self.table.resizeColumnsToContents()
        numeric = len(cols) == 2 and rows and all(isinstance(row[1], (int, float)) and not isinstance(row[1], bool)
                                                  for row in rows)
        if data.get("grouped") and numeric:
            self.chart.set_data(f"{cols[1]} by {cols[0]}", [(str(row[0]), float(row[1])) for row in rows])
            self.chart.show()
        else:
            self.chart.hide()
