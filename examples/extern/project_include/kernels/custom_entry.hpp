// Found through include_paths=[PROJECT_INCLUDE_DIR] (examples/extern/project_include).
#pragma once

inline void custom_entry() {}
