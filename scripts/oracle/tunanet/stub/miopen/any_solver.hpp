// Stand-in for the MIOpen types ai_heuristics.cpp uses: a convolution problem read from its
// find-db key (the fields `ProblemDescription::Serialize` writes, src/conv/problem_description.cpp
// :188-230@2d1fd997), the solver registry's names and ids read from $ORACLE_REGISTRY, logging
// kept for the driver to print, and every solver applicable (the oracle checks the problem's
// shape tests, its features, the network and the order; applicability is the model's part).
#pragma once
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#include <miopen/miopen.h>

enum miopenStatus_t
{
    miopenStatusInternalError = 7,
};

namespace miopen_oracle {
inline std::string& last_log()
{
    static std::string s;
    return s;
}
inline std::string msg(const std::string& m) { return m; }
template <class S>
std::string msg(S, const std::string& m)
{
    return m;
}
} // namespace miopen_oracle

#define MIOPEN_LOG_I2(x)                            \
    do                                              \
    {                                               \
        std::ostringstream miopen_oracle_ss;        \
        miopen_oracle_ss << x;                      \
        miopen_oracle::last_log() = miopen_oracle_ss.str(); \
    } while(false)
#define MIOPEN_THROW(...) throw std::runtime_error(miopen_oracle::msg(__VA_ARGS__))

namespace miopen {
enum class LoggingLevel
{
    Info2
};
inline bool IsLogging(LoggingLevel) { return false; }

struct ExecutionContext
{
};

namespace conv {
enum class Direction
{
    Forward,
    BackwardData,
    BackwardWeights
};

struct ProblemDescription
{
    int dims = 2;
    std::size_t in_c = 0, in_d = 1, in_h = 0, in_w = 0, fil_d = 1, fil_h = 0, fil_w = 0;
    std::size_t out_c = 0, out_d = 1, out_h = 0, out_w = 0, batch = 0, groups = 1;
    int pad_h = 0, pad_w = 0, str_h = 0, str_w = 0, dil_h = 0, dil_w = 0, bias = 0;
    std::string layout;
    miopenDataType_t type = miopenFloat;
    Direction dir = Direction::Forward;

    bool Is2d() const { return dims == 2; }
    std::size_t GetGroupCount() const { return groups; }
    std::string GetInLayout() const { return layout; }
    std::size_t GetInChannels() const { return in_c; }
    std::size_t GetInDepth() const { return in_d; }
    std::size_t GetInHeight() const { return in_h; }
    std::size_t GetInWidth() const { return in_w; }
    std::size_t GetOutChannels() const { return out_c; }
    std::size_t GetOutDepth() const { return out_d; }
    std::size_t GetOutHeight() const { return out_h; }
    std::size_t GetOutWidth() const { return out_w; }
    std::size_t GetWeightsDepth() const { return fil_d; }
    std::size_t GetWeightsHeight() const { return fil_h; }
    std::size_t GetWeightsWidth() const { return fil_w; }
    std::size_t GetOutBatchSize() const { return batch; }
    int GetPadH() const { return pad_h; }
    int GetPadW() const { return pad_w; }
    int GetKernelStrideH() const { return str_h; }
    int GetKernelStrideW() const { return str_w; }
    int GetDilationH() const { return dil_h; }
    int GetDilationW() const { return dil_w; }
    int GetBias() const { return bias; }
    miopenDataType_t GetInDataType() const { return type; }
    Direction GetDirection() const { return dir; }
};
} // namespace conv

namespace solver {
struct AnySolver
{
    bool valid;
    template <class C, class P>
    bool IsApplicable(const C&, const P&) const
    {
        return valid;
    }
};

inline const std::map<std::string, std::uint64_t>& Registry()
{
    static const std::map<std::string, std::uint64_t> r = [] {
        std::map<std::string, std::uint64_t> m;
        const char* path = std::getenv("ORACLE_REGISTRY");
        std::ifstream in(path ? path : "");
        std::string line;
        std::getline(in, line); // header: id, name_current, name_legacy_2024, ...
        while(std::getline(in, line))
        {
            std::istringstream row(line);
            std::string id, current, legacy;
            std::getline(row, id, '\t');
            std::getline(row, current, '\t');
            std::getline(row, legacy, '\t');
            m[legacy.empty() ? current : legacy] = std::stoull(id);
        }
        return m;
    }();
    return r;
}

struct Id
{
    std::string name;
    explicit Id(const std::string& n) : name(n) {}
    explicit Id(std::uint64_t v)
    {
        for(const auto& kv : Registry())
            if(kv.second == v)
                name = kv.first;
    }
    bool IsValid() const { return Registry().count(name) != 0; }
    std::uint64_t Value() const { return IsValid() ? Registry().at(name) : 0; }
    std::string ToString() const { return name; }
    AnySolver GetSolver() const { return AnySolver{IsValid()}; }
};
} // namespace solver
} // namespace miopen
