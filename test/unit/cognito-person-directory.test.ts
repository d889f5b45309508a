import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  InvalidPasswordException,
  UserNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { cognitoPersonDirectory } from '../../shared/identity/person-directories';

/** Cognito's users, faked in memory: AdminSetUserPassword refuses a password as the pool's policy would. */
const fakeCognito = () => {
  const users = new Set<string>();
  const commands: string[] = [];
  vi.spyOn(CognitoIdentityProviderClient.prototype, 'send').mockImplementation((async (command: unknown) => {
    commands.push((command as object).constructor.name);
    if (command instanceof AdminCreateUserCommand) {
      users.add(command.input.Username!);
      return {};
    }
    if (command instanceof AdminSetUserPasswordCommand) {
      if (command.input.Password === 'weak') throw new InvalidPasswordException({ message: 'Password did not conform with policy', $metadata: {} });
      return {};
    }
    if (command instanceof AdminDeleteUserCommand) {
      if (!users.delete(command.input.Username!)) throw new UserNotFoundException({ message: 'User does not exist.', $metadata: {} });
      return {};
    }
    throw new Error('unexpected command');
  }) as never);
  return { users, commands };
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Cognito person directory', () => {
  const person = { userId: 'user-1', email: 'kari@example.test', name: 'Kari' };

  it('deletes the user it created when setting the password fails, so a re-run does not meet its e-mail alias', async () => {
    const { users, commands } = fakeCognito();
    await expect(cognitoPersonDirectory('pool', 'eu-north-1').create(person, 'weak')).rejects.toBeInstanceOf(InvalidPasswordException);
    expect(commands).toEqual(['AdminCreateUserCommand', 'AdminSetUserPasswordCommand', 'AdminDeleteUserCommand']);
    expect(users.size).toBe(0);
  });

  it('removes a user that is gone already without an error (a re-run of delete-user)', async () => {
    const { users } = fakeCognito();
    const directory = cognitoPersonDirectory('pool', 'eu-north-1');
    await directory.create(person, 'Strong-Password-2026!');
    await directory.remove(person.userId);
    await expect(directory.remove(person.userId)).resolves.toBeUndefined();
    expect(users.size).toBe(0);
  });
});
