/* Internal file helpers shared by the library's writers (io/tflite/writer.c, util/npy.c):
   temporary files next to the target and the atomic move into place. The public rules
   (lg_output_check, lg_input_open) are declared in lg/lg.h, section "files". */
#ifndef LGI_UTIL_FILE_H
#define LGI_UTIL_FILE_H
#include <stdbool.h>
#include <sys/types.h>
#include "internal.h"

/* The process umask, read without changing it where /proc allows. */
LG_INTERNAL mode_t lgi_umask(void);

/* A temporary file "DIR/.NAME.XXXXXX" next to path, so that the final rename stays on one
   file system. On LG_OK *fd is open for writing and *tmp malloc'ed (the caller frees it). */
LG_INTERNAL lg_status lgi_tmp_create(const char *path, int *fd, char **tmp, lg_error *err);

/* Finish a temporary file written in full: mode 0666 & ~umask, fsync (when durable), close,
   then move it to
   path: without force with link() (refuses an existing path atomically; rename() where the
   file system has no hard links), with force with rename() after lg_output_check again (so a
   path turned into a device or link meanwhile is still refused). Closes fd and removes tmp on
   failure. Returns LG_OK or the error (LG_ERR_EXISTS, LG_ERR_INVALID_ARG, LG_ERR_IO). */
LG_INTERNAL lg_status lgi_tmp_commit(int fd, const char *tmp, const char *path, bool force,
                                     bool durable, lg_error *err);
#endif
