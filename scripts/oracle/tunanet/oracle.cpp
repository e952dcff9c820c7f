// The reference for `rocpath explain miopen`'s TunaNet ranking: MIOpen's own
// src/conv/heuristics/ai_heuristics.cpp (the immediate-mode part, included as it is) with
// frugally-deep at the commit MIOpen pins, over the stand-in types of stub/.
//   ORACLE_DB=<folder of *.tn.model> ORACLE_REGISTRY=<miopen_solvers.tsv> oracle DEVICE < keys
// One find-db key per line in; per line out:
//   key \t supported \t solver:score;solver:score…   (PredictSolver's order, Forward's outputs)
//   key \t unsupported \t the IsProblemSupported message
//   key \t error \t what MIOpen threw
#include AI_HEURISTICS_CPP

#include <cstdio>
#include <iostream>

using miopen::conv::Direction;
using miopen::conv::ProblemDescription;

static std::vector<std::string> split(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::string cur;
    for(char c : s)
    {
        if(c == sep)
        {
            out.push_back(cur);
            cur.clear();
        }
        else
            cur += c;
    }
    out.push_back(cur);
    return out;
}

static std::vector<long> dims(const std::string& s)
{
    std::vector<long> v;
    for(const auto& p : split(s, 'x'))
        v.push_back(std::stol(p));
    return v;
}

static miopenDataType_t first_type(const std::string& t)
{
    const std::pair<const char*, miopenDataType_t> names[] = {
        {"INT64", miopenInt64}, {"INT32", miopenInt32}, {"INT8", miopenInt8},
        {"FP64", miopenDouble}, {"FP32", miopenFloat},  {"FP16", miopenHalf},
        {"BF16", miopenBFloat16}, {"FP8", miopenFloat8}, {"BF8", miopenBFloat8}};
    for(const auto& n : names)
        if(t.rfind(n.first, 0) == 0)
            return n.second;
    throw std::runtime_error("unknown type " + t);
}

// The key as ProblemDescription::Serialize writes it (2-D or 3-D, one or three layouts,
// then `_g<groups>` among the optional parts).
static ProblemDescription parse_key(const std::string& key)
{
    ProblemDescription p;
    const auto parts = split(key, '_');
    for(std::size_t i = 1; i < parts.size(); ++i)
        if(parts[i].size() > 1 && parts[i][0] == 'g')
            p.groups = std::stoul(parts[i].substr(1));
    const auto t = split(parts[0], '-');
    p.dims       = t.size() > 3 && t[3].find('x') != std::string::npos ? 2 : 3;
    std::size_t k = 0;
    auto next     = [&] { return t.at(k++); };
    auto num      = [&] { return std::stoul(next()); };
    p.in_c        = num();
    if(p.dims == 3)
        p.in_d = num();
    p.in_h   = num();
    p.in_w   = num();
    auto fil = dims(next());
    p.fil_h  = fil[fil.size() - 2];
    p.fil_w  = fil.back();
    if(p.dims == 3)
        p.fil_d = fil[0];
    p.out_c = num();
    if(p.dims == 3)
        p.out_d = num();
    p.out_h  = num();
    p.out_w  = num();
    p.batch  = num();
    auto pad = dims(next()), str = dims(next()), dil = dims(next());
    p.pad_h  = pad[pad.size() - 2];
    p.pad_w  = pad.back();
    p.str_h  = str[str.size() - 2];
    p.str_w  = str.back();
    p.dil_h  = dil[dil.size() - 2];
    p.dil_w  = dil.back();
    p.bias   = std::stoi(next());
    p.layout = next();
    if(t.size() - k == 4)
        k += 2; // weights and output layouts
    p.type         = first_type(next());
    const auto dir = next();
    p.dir = dir == "B" ? Direction::BackwardData
                       : (dir == "W" ? Direction::BackwardWeights : Direction::Forward);
    return p;
}

int main(int argc, char** argv)
{
    if(argc != 2)
    {
        std::cerr << "usage: ORACLE_DB=DIR ORACLE_REGISTRY=TSV oracle DEVICE < keys\n";
        return 2;
    }
    const std::string device = argv[1];
    const auto model         = miopen::ai::immed_mode::GetModel(device);
    const miopen::ExecutionContext ctx;
    std::string key;
    while(std::getline(std::cin, key))
    {
        if(key.empty())
            continue;
        try
        {
            const auto p = parse_key(key);
            if(!model->IsProblemSupported(p, ctx))
            {
                std::cout << key << "\tunsupported\t" << miopen_oracle::last_log() << "\n";
                continue;
            }
            const auto out = model->Forward(p);
            const auto ids = miopen::ai::immed_mode::PredictSolver(p, ctx, device);
            std::cout << key << "\tsupported\t";
            for(std::size_t i = 0; i < ids.size(); ++i)
            {
                const auto name = miopen::solver::Id{ids[i]}.ToString();
                float score     = 0;
                for(const auto& kv : model->metadata.solver_map)
                    if(kv.second == name)
                        score = out.at(kv.first);
                char buf[32];
                std::snprintf(buf, sizeof buf, "%.9g", score);
                std::cout << (i ? ";" : "") << name << ":" << buf;
            }
            std::cout << "\n";
        }
        catch(const std::exception& e)
        {
            std::cout << key << "\terror\t" << e.what() << "\n";
        }
    }
}
