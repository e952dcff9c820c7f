// Stand-in for the in-memory cache of TunaNet results: never a hit, so every problem is evaluated.
#pragma once
#include <any>
#include <optional>
#include <string>
#include <vector>
namespace boost {
using std::any;
using std::any_cast;
} // namespace boost
namespace miopen {
struct AnyRamDb
{
    static AnyRamDb& GetCached(const std::string&)
    {
        static AnyRamDb db;
        return db;
    }
    template <class P>
    std::optional<std::vector<boost::any>> FindRecord(const P&)
    {
        return std::nullopt;
    }
    template <class P>
    void StoreRecord(const P&, const std::vector<boost::any>&)
    {
    }
};
} // namespace miopen
