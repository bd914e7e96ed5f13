// libmicrohttpd for Swift. MHD_start_daemon is variadic, which Swift cannot call: this typed wrapper
// passes the options as one MHD_OPTION_ARRAY instead.
#ifndef HAR_CMICROHTTPD_SHIM_H
#define HAR_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include <malloc.h>

static inline struct MHD_Daemon *har_mhd_start_daemon(unsigned int flags, uint16_t port,
                                                      MHD_AccessHandlerCallback handler, void *handler_cls,
                                                      struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// glibc's malloc_trim and mallopt (the Swift Glibc module leaves <malloc.h> out); see ProcessMemory.swift.
static inline int har_malloc_trim(void) { return malloc_trim(0); }
static inline int har_malloc_fix_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

/// accept4 and pipe2 are GNU extensions that glibc declares only under _GNU_SOURCE, which the Swift
/// Glibc module is built without: declared here as glibc defines them (accept4(2), pipe2(2)), for
/// Listener.swift, which sets close-on-exec and non-blocking in the same call as MHD's own accept did.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
extern int pipe2(int fds[2], int flags);
static inline int har_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(fd, address, length, flags);
}
static inline int har_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }

/// The peer address of a connection, or NULL.
static inline const struct sockaddr *har_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

/// The listening socket MHD owns, or -1 (MHD_USE_NO_LISTEN_SOCKET).
static inline int har_mhd_listen_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_LISTEN_FD);
    return info ? info->listen_fd : -1;
}

/// The number of open connections of a daemon (with a thread pool, the sum over its threads).
static inline unsigned int har_mhd_connection_count(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? info->num_connections : 0;
}
/* Option items built in C: MHD_OPTION_ARRAY wants function pointers cast to intptr_t, a cast that is
   plain in C and awkward (unsafeBitCast) in Swift. */
static inline struct MHD_OptionItem har_mhd_option_value(enum MHD_OPTION option, intptr_t value) {
    struct MHD_OptionItem item = { option, value, NULL };
    return item;
}

static inline struct MHD_OptionItem har_mhd_option_pointer(enum MHD_OPTION option, void *pointer) {
    struct MHD_OptionItem item = { option, 0, pointer };
    return item;
}

static inline struct MHD_OptionItem har_mhd_option_completed(MHD_RequestCompletedCallback callback, void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)callback, cls };
    return item;
}

typedef void *(*har_mhd_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

static inline struct MHD_OptionItem har_mhd_option_uri_log(har_mhd_uri_log_callback callback, void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)callback, cls };
    return item;
}

static inline struct MHD_OptionItem har_mhd_option_logger(MHD_LogCallback callback, void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)callback, cls };
    return item;
}

static inline struct MHD_OptionItem har_mhd_option_notify_connection(MHD_NotifyConnectionCallback callback,
                                                                     void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)callback, cls };
    return item;
}

/// What the connection-notify callback kept in the connection's socket context, or NULL.
static inline void *har_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/// The socket of a connection, or -1.
static inline int har_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

static inline struct MHD_OptionItem har_mhd_option_end(void) {
    struct MHD_OptionItem item = { MHD_OPTION_END, 0, NULL };
    return item;
}

/* Not libmicrohttpd's: the HTTP server's only C door, for TemporaryFile. Starts writing a file's dirty
   pages in [offset, offset + length) to disk and returns without waiting for them (Linux
   sync_file_range with SYNC_FILE_RANGE_WRITE, which Swift cannot see: it is a _GNU_SOURCE call), so
   that an upload's final fsync finds most of its bytes written already. A no-op elsewhere. */
#include <sys/syscall.h>
#include <unistd.h>
static inline int har_start_writeback(int fd, int64_t offset, int64_t length) {
#if defined(__linux__) && defined(SYS_sync_file_range) && (defined(__x86_64__) || defined(__aarch64__))
    return (int)syscall(SYS_sync_file_range, fd, (long)offset, (long)length, 2u /* SYNC_FILE_RANGE_WRITE */);
#else
    (void)fd;
    (void)offset;
    (void)length;
    return 0;
#endif
}

#endif
