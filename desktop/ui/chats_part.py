"""The chat list of the main window: open, start, rename, delete and export chats."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog, QListWidgetItem, QMenu, QMessageBox


class ChatsPart:
    """The chats section of :class:`~desktop.ui.main_window.MainWindow` (a part of it, not a widget)."""

    # -- chats -------------------------------------------------------------------------------------
    def reload_chats(self) -> None:
        self.chat_list.clear()
        for conv in self.store.conversations(self.user):
            item = QListWidgetItem(conv.title)
            item.setData(Qt.UserRole, conv.id)
            self.chat_list.addItem(item)
        if self.conversation is None and self.chat_list.count():
            self.open_chat(self.chat_list.item(0).data(Qt.UserRole))
        self._filter_chats(self.chat_filter.text())

    def _filter_chats(self, text: str) -> None:
        key = text.casefold()
        for i in range(self.chat_list.count()):
            item = self.chat_list.item(i)
            item.setHidden(key not in item.text().casefold())

    def new_chat(self) -> None:
        if self.busy:
            return
        self.chat.new()
        self.procedure_card.clear()
        self.transcript.scroll_to_end()
        self.render()
        self.trace_tree.clear()
        self.sources.clear()
        self.input.setFocus()

    def open_chat(self, conversation: int) -> None:
        if self.busy:
            return
        self.chat.open(conversation)
        self.transcript.scroll_to_end()
        self.render()
        self._show_all_traces()
        self._resume_procedure()
        self._update_actions()

    def _chat_menu(self, pos) -> None:
        item = self.chat_list.itemAt(pos)
        if item is None:
            return
        conv = item.data(Qt.UserRole)
        menu = QMenu(self)
        menu.addAction("Rename…", lambda: self.rename_chat(conv))
        menu.addAction("Export to Markdown…", lambda: self.export_chat(conv))
        menu.addAction("Delete…", lambda: self.delete_chat(conv))
        menu.exec(self.chat_list.mapToGlobal(pos))

    def rename_chat(self, conv: int, title: str | None = None) -> None:
        if title is None:
            title, ok = QInputDialog.getText(self, "Rename chat", "Title:")
            if not ok:
                return
        self.store.rename(conv, title)
        self.reload_chats()

    def delete_chat(self, conv: int, confirm: bool = True) -> None:
        if confirm and QMessageBox.question(self, "Delete chat", "Delete this chat? This cannot be undone.") \
                != QMessageBox.Yes:
            return
        self.store.delete(conv)
        if self.chat.forget(conv):
            self.procedure_card.clear()
            self.render()
        self.reload_chats()

    def export_chat(self, conv: int | None = None, path: str | None = None) -> None:
        conv = conv or self.conversation
        if conv is None:
            return
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export chat", str(Path.home() / "chat.md"), "Markdown (*.md)")
            if not path:
                return
        Path(path).write_text(self.store.export_markdown(conv), encoding="utf-8")
