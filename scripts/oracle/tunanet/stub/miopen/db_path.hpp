// Stand-in: the system database folder is $ORACLE_DB.
#pragma once
#include <cstdlib>
#include <miopen/filesystem.hpp>
namespace miopen {
inline fs::path GetSystemDbPath()
{
    const char* p = std::getenv("ORACLE_DB");
    return p ? fs::path(p) : fs::path(".");
}
} // namespace miopen
