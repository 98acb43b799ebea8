// Present in the source tree but never declared: invisible to the sandbox.
#pragma once
inline void undeclared_entry() {}
