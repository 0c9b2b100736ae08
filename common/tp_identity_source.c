/*
 * tp_identity_source.c: the words for a profile key's source
 * (tp_identity_source.h).
 */
#include "tp_config.h"

#include "tp_identity_source.h"

const char *tp_identity_source_name(tp_identity_source source)
{
	switch (source) {
	case TP_IDENTITY_COMM_PROFILE:
		return "--comm-profile";
	case TP_IDENTITY_SCRIPT:
		return "script hash";
	case TP_IDENTITY_SCRIPT_LINK:
		return "script hash, via executable";
	case TP_IDENTITY_JOB_NAME:
		return "job name";
	default:
		return "none";
	}
}
