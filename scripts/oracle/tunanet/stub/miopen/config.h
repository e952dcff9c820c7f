// Stand-in for MIOpen's generated config.h: the immediate-mode fallback on, kernel tuning off.
#pragma once
#define MIOPEN_ENABLE_AI_IMMED_MODE_FALLBACK 1
#define MIOPEN_ENABLE_AI_KERNEL_TUNING 0
#define MIOPEN_INTERNALS_EXPORT
