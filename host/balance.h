/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsr-host balance: one process sizing the balloons of several VMs from
 * their working-set reports (host/policy.c decides, this loop talks QMP).
 */
#ifndef __WSR_HOST_BALANCE_H
#define __WSR_HOST_BALANCE_H

/* "wsr-host balance ARGS": @argv[0] is "balance"; returns the exit status */
int cmd_balance(int argc, char **argv);

#endif /* __WSR_HOST_BALANCE_H */
