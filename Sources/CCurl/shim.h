#ifndef TODOD_CCURL_SHIM_H
#define TODOD_CCURL_SHIM_H
#include <curl/curl.h>
#endif
