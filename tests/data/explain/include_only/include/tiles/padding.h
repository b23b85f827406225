// Included with "..." from tiles/layout.h: found in the including file's directory.
#pragma once
#ifndef PAD
#define PAD 1
#endif
