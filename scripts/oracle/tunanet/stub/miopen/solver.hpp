// Stand-in: rocm-6.2.2 includes solver.hpp; what ai_heuristics.cpp uses of it is in any_solver.hpp.
#pragma once
#include <miopen/any_solver.hpp>
