"""The model layer: one narrow backend interface (:mod:`.backend`), the llama.cpp, HTTP-server and
scripted backends, chat templates, GGUF reading, model discovery and the model packages."""
