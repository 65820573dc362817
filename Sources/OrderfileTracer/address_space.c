/*
 * address_space.c - a traced process's memory and the breakpoints written
 * into it: reads and writes through /proc/PID/mem, the breakpoint table, and
 * the list of mappings already looked at. It knows nothing of /proc/PID/maps,
 * of ELF or of the host (modules.c decides what to arm, stops.c handles the
 * traps).
 *
 * Writes go through /proc/PID/mem, which the kernel lets a tracer use on
 * read-only text (a private copy of each touched page is made, as a debugger
 * does). Pages are read and written whole runs at a time, and only pages
 * that hold an entry, so arming 100,000 functions costs a few hundred system
 * calls, not 100,000.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracer_internal.h"

#define OFTR_PATCH_CHUNK (1u << 20) /* bytes read and written at most at once */

/* ---- memory ---------------------------------------------------------- */

static int open_memory(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
  return open(path, O_RDWR | O_CLOEXEC);
}

/*
 * The memory file reaches the image that was current when it was opened, and
 * no other: once that image is gone (the process exec'd or exited), a read or
 * write moves nothing and returns 0, where an unmapped address fails with EIO.
 * That 0 is ESRCH here: nothing of the tracer's is left in that memory.
 */
int oftr_read_memory(oftr_space *space, uint64_t address, void *buffer, size_t length) {
  size_t done = 0;
  while (done < length) {
    ssize_t got = pread(space->memory, (char *)buffer + done, length - done, (off_t)(address + done));
    if (got < 0 && errno == EINTR) continue;
    if (got == 0) errno = ESRCH;
    if (got <= 0) return -1;
    done += (size_t)got;
  }
  return 0;
}

static int write_memory(oftr_space *space, uint64_t address, const void *buffer, size_t length) {
  size_t done = 0;
  while (done < length) {
    ssize_t put = pwrite(space->memory, (const char *)buffer + done, length - done, (off_t)(address + done));
    if (put < 0 && errno == EINTR) continue;
    if (put == 0) errno = ESRCH;
    if (put <= 0) return -1;
    done += (size_t)put;
  }
  return 0;
}

int oftr_write_byte(oftr_space *space, uint64_t address, uint8_t byte) {
  return write_memory(space, address, &byte, 1);
}

/*
 * Stores bytes[i] at addresses[i] (sorted, distinct) and, when `previous` is
 * not NULL, returns the bytes they replaced. Works in runs of consecutive
 * pages that each hold an address: such pages are mapped, so no read of a run
 * falls into a hole between mappings. Each run is read, changed and written
 * back whole, through a buffer of this call's own: a host may record several
 * programs at once on several threads, and a buffer they shared would carry
 * one program's pages into another's memory between the read and the write.
 */
static int patch(oftr_space *space, const uint64_t *addresses, const uint8_t *bytes, uint8_t *previous,
                 size_t count) {
  if (count == 0) return 0;
  uint64_t span = oftr_page_down(addresses[count - 1]) + OFTR_PAGE - oftr_page_down(addresses[0]);
  uint8_t *buffer = malloc(span < OFTR_PATCH_CHUNK ? span : OFTR_PATCH_CHUNK);
  if (!buffer) return -1;
  int status = 0;
  size_t i = 0;
  while (i < count) {
    uint64_t start = oftr_page_down(addresses[i]);
    uint64_t end = start + OFTR_PAGE;
    size_t j = i;
    while (j < count) {
      uint64_t page = oftr_page_down(addresses[j]);
      if (page >= end) {
        if (page != end || end + OFTR_PAGE - start > OFTR_PATCH_CHUNK) break;
        end += OFTR_PAGE;
      }
      j++;
    }
    if (oftr_read_memory(space, start, buffer, end - start) != 0) {
      status = -1;
      break;
    }
    for (size_t k = i; k < j; k++) {
      if (previous) previous[k] = buffer[addresses[k] - start];
      buffer[addresses[k] - start] = bytes[k];
    }
    if (write_memory(space, start, buffer, end - start) != 0) {
      status = -1;
      break;
    }
    i = j;
  }
  int error = errno; /* the caller's message names it */
  free(buffer);
  errno = error;
  return status;
}

/* ---- the breakpoint table ------------------------------------------- */

static uint64_t slot_hash(uint64_t address) { return (address * 0x9E3779B97F4A7C15ull) >> 17; }

static int table_grow(oftr_space *space, uint64_t wanted) {
  uint64_t capacity = space->capacity ? space->capacity : 1024;
  while (capacity < wanted * 2) capacity *= 2;
  if (capacity == space->capacity) return 0;
  oftr_slot *slots = calloc(capacity, sizeof *slots);
  if (!slots) return -1;
  for (uint64_t i = 0; i < space->capacity; i++) {
    oftr_slot *old = &space->slots[i];
    if (old->state == OFTR_SLOT_EMPTY) continue;
    uint64_t at = slot_hash(old->address) & (capacity - 1);
    while (slots[at].state != OFTR_SLOT_EMPTY) at = (at + 1) & (capacity - 1);
    slots[at] = *old;
  }
  free(space->slots);
  space->slots = slots;
  space->capacity = capacity;
  return 0;
}

oftr_slot *oftr_space_find(oftr_space *space, uint64_t address) {
  if (space->capacity == 0) return NULL;
  uint64_t at = slot_hash(address) & (space->capacity - 1);
  while (space->slots[at].state != OFTR_SLOT_EMPTY) {
    if (space->slots[at].address == address) return &space->slots[at];
    at = (at + 1) & (space->capacity - 1);
  }
  return NULL;
}

/* The slot for `address`, made empty-but-claimed (state still EMPTY) when new. */
static oftr_slot *slot_claim(oftr_space *space, uint64_t address, bool *fresh) {
  uint64_t at = slot_hash(address) & (space->capacity - 1);
  while (space->slots[at].state != OFTR_SLOT_EMPTY) {
    if (space->slots[at].address == address) {
      *fresh = false;
      return &space->slots[at];
    }
    at = (at + 1) & (space->capacity - 1);
  }
  *fresh = true;
  space->slots[at].address = address;
  return &space->slots[at];
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

void oftr_sort_addresses(uint64_t *addresses, size_t count) {
  qsort(addresses, count, sizeof *addresses, compare_u64);
}

int oftr_space_arm(oftr_space *space, uint64_t *addresses, size_t count, uint32_t module, size_t *armed,
                   size_t *wanted) {
  *armed = 0;
  size_t unique = 0;
  for (size_t i = 0; i < count; i++) {
    if (unique > 0 && addresses[unique - 1] == addresses[i]) continue;
    if (oftr_space_find(space, addresses[i])) continue; /* armed already, or hit */
    addresses[unique++] = addresses[i];
  }
  *wanted = unique;
  uint8_t *bytes = malloc(unique + 1), *originals = malloc(unique + 1);
  if (!bytes || !originals || table_grow(space, space->used + unique + 1) != 0) {
    free(bytes);
    free(originals);
    errno = ENOMEM;
    return OFTR_ARM_NO_MEMORY;
  }
  memset(bytes, OFTR_BREAKPOINT, unique);
  if (patch(space, addresses, bytes, originals, unique) != 0) {
    int error = errno;
    free(bytes);
    free(originals);
    errno = error;
    return OFTR_ARM_NOT_WRITTEN;
  }
  for (size_t i = 0; i < unique; i++) {
    bool fresh;
    oftr_slot *slot = slot_claim(space, addresses[i], &fresh);
    slot->module = module;
    slot->original = originals[i];
    slot->stop = 0;
    space->used++;
    if (originals[i] == OFTR_BREAKPOINT) {
      /* The function begins with a trap of its own: keep it, never arm it. */
      slot->state = OFTR_SLOT_HIT;
      continue;
    }
    slot->state = OFTR_SLOT_ARMED;
    (*armed)++;
  }
  space->armed += *armed;
  free(bytes);
  free(originals);
  return 0;
}

void oftr_space_mark_stop(oftr_space *space, uint64_t address) {
  oftr_slot *slot = oftr_space_find(space, address);
  if (slot) slot->stop = 1;
}

void oftr_space_add_hook(oftr_space *space, uint64_t address, uint8_t original) {
  if (table_grow(space, space->used + 1) != 0) return;
  bool fresh;
  oftr_slot *slot = slot_claim(space, address, &fresh);
  if (!fresh) return;
  slot->original = original;
  space->used++;
  if (oftr_write_byte(space, address, OFTR_BREAKPOINT) != 0) {
    slot->state = OFTR_SLOT_HIT;
    return;
  }
  slot->state = OFTR_SLOT_HOOK;
  slot->module = UINT32_MAX;
}

int oftr_space_add_watch(oftr_space *space, uint64_t address) {
  oftr_slot *slot = oftr_space_find(space, address);
  if (slot) {
    if (slot->original == OFTR_BREAKPOINT || slot->state == OFTR_SLOT_HOOK || slot->state == OFTR_SLOT_WATCH)
      return 0;
    if (slot->state == OFTR_SLOT_HIT && oftr_write_byte(space, address, OFTR_BREAKPOINT) != 0) return -1;
    slot->pending = slot->state == OFTR_SLOT_ARMED;
    slot->state = OFTR_SLOT_WATCH;
    return 0;
  }
  uint8_t original;
  if (oftr_read_memory(space, address, &original, 1) != 0 || original == OFTR_BREAKPOINT) return -1;
  if (table_grow(space, space->used + 1) != 0) return -1;
  if (oftr_write_byte(space, address, OFTR_BREAKPOINT) != 0) return -1;
  bool fresh;
  slot = slot_claim(space, address, &fresh);
  slot->original = original;
  slot->state = OFTR_SLOT_WATCH;
  slot->module = UINT32_MAX;
  space->used++;
  return 0;
}

int oftr_restore_all(oftr_space *space, bool every_slot) {
  uint64_t *addresses = malloc((space->used + 1) * sizeof *addresses);
  uint8_t *bytes = malloc(space->used + 1);
  if (!addresses || !bytes) {
    free(addresses);
    free(bytes);
    return -1;
  }
  size_t count = 0;
  for (uint64_t i = 0; i < space->capacity; i++) {
    oftr_slot *slot = &space->slots[i];
    bool live = slot->state == OFTR_SLOT_ARMED || slot->state == OFTR_SLOT_HOOK || slot->state == OFTR_SLOT_WATCH;
    if (live || (every_slot && slot->state != OFTR_SLOT_EMPTY)) addresses[count++] = slot->address;
  }
  oftr_sort_addresses(addresses, count);
  for (size_t i = 0; i < count; i++) {
    oftr_slot *slot = oftr_space_find(space, addresses[i]);
    bytes[i] = slot->original;
    /* Removed, never reported: a thread that trapped on it before now is rewound as after a race. */
    if (slot->state != OFTR_SLOT_EMPTY) slot->state = OFTR_SLOT_HIT;
  }
  int status = patch(space, addresses, bytes, NULL, count);
  space->armed = 0;
  free(addresses);
  free(bytes);
  return status;
}

/* ---- mappings looked at ---------------------------------------------- */

bool oftr_space_knows(const oftr_space *space, uint64_t device, uint64_t inode, uint64_t base) {
  for (uint32_t i = 0; i < space->known_count; i++) {
    const oftr_known_module *k = &space->known[i];
    if (k->device == device && k->inode == inode && k->base == base) return true;
  }
  return false;
}

int oftr_space_remember(oftr_space *space, uint64_t device, uint64_t inode, uint64_t base) {
  if (space->known_count == space->known_capacity) {
    uint32_t capacity = space->known_capacity ? space->known_capacity * 2 : 32;
    oftr_known_module *items = realloc(space->known, capacity * sizeof *items);
    if (!items) return -1;
    space->known = items;
    space->known_capacity = capacity;
  }
  space->known[space->known_count++] = (oftr_known_module){device, inode, base};
  return 0;
}

/* ---- spaces ---------------------------------------------------------- */

oftr_space *oftr_space_new(pid_t pid) {
  oftr_space *space = calloc(1, sizeof *space);
  if (!space) return NULL;
  space->references = 1;
  space->memory = open_memory(pid);
  if (space->memory < 0) {
    free(space);
    return NULL;
  }
  return space;
}

oftr_space *oftr_space_copy(const oftr_space *parent, pid_t pid) {
  oftr_space *space = oftr_space_new(pid);
  if (!space) return NULL;
  space->slots = calloc(parent->capacity ? parent->capacity : 1, sizeof *space->slots);
  space->known = malloc((parent->known_capacity ? parent->known_capacity : 1) * sizeof *space->known);
  if (!space->slots || !space->known) {
    oftr_space_release(space);
    return NULL;
  }
  memcpy(space->slots, parent->slots, parent->capacity * sizeof *space->slots);
  memcpy(space->known, parent->known, parent->known_count * sizeof *space->known);
  space->capacity = parent->capacity;
  space->used = parent->used;
  space->armed = parent->armed;
  space->known_count = parent->known_count;
  space->known_capacity = parent->known_capacity ? parent->known_capacity : 1;
  space->module_count = parent->module_count;
  return space;
}

void oftr_space_release(oftr_space *space) {
  if (!space || --space->references > 0) return;
  if (space->memory >= 0) close(space->memory);
  free(space->slots);
  free(space->known);
  free(space);
}
