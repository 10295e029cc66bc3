#ifndef TODOD_CCURL_SHIM_H
#define TODOD_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
// wrapper per argument kind TodoCalDAV/HTTP.swift uses.

/// CURLAUTH_BASIC, a macro Swift cannot import.
static const long todod_curlauth_basic = (long)CURLAUTH_BASIC;

typedef size_t (*todod_curl_data_fn)(char *data, size_t size, size_t count, void *context);

typedef int (*todod_curl_progress_fn)(void *context, curl_off_t download_total, curl_off_t download_now,
                                      curl_off_t upload_total, curl_off_t upload_now);

static inline CURLcode todod_curl_set_progress(CURL *handle, todod_curl_progress_fn value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

static inline CURLcode todod_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode todod_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode todod_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode todod_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode todod_curl_set_function(CURL *handle, CURLoption option, todod_curl_data_fn value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode todod_curl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode todod_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
#endif
