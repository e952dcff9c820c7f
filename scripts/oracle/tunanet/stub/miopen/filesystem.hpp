// Stand-in for MIOpen's filesystem.hpp: std::filesystem and the string + path operator it adds.
#pragma once
#include <filesystem>
#include <string>
namespace miopen {
namespace fs = std::filesystem;
inline std::string operator+(const std::string& s, const fs::path& p) { return s + p.string(); }
} // namespace miopen
