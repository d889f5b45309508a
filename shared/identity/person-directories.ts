import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  UserNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { traced } from '../platform/tracer';
import { hashSecret } from './client-secrets';

/** Where people sign in: the local identity provider (a password hash kept on the person) or Cognito. */
export interface PersonDirectory {
  /** Registers the person's login; answers what to keep on the person (the local password hash). */
  create(person: { userId: string; email: string; name: string }, password: string): Promise<{ passwordHash?: string }>;
  /** Removes the login; a login that is not there counts as removed. */
  remove(userId: string): Promise<void>;
}

export const localPersonDirectory: PersonDirectory = {
  async create(_person, password) {
    return { passwordHash: await hashSecret(password) };
  },
  async remove() {},
};

/** Cognito: the username is the userId (the authorizer maps the Cognito user to the person by it). */
export const cognitoPersonDirectory = (userPoolId: string, region?: string): PersonDirectory => {
  const cognito = traced(new CognitoIdentityProviderClient({ region }));
  // A user that is gone already counts as removed (a re-run of delete-user).
  const remove = async (userId: string): Promise<void> => {
    try {
      await cognito.send(new AdminDeleteUserCommand({ UserPoolId: userPoolId, Username: userId }));
    } catch (error) {
      if (!(error instanceof UserNotFoundException)) throw error;
    }
  };
  return {
    async create(person, password) {
      await cognito.send(
        new AdminCreateUserCommand({
          UserPoolId: userPoolId,
          Username: person.userId,
          MessageAction: 'SUPPRESS',
          UserAttributes: [
            { Name: 'email', Value: person.email },
            { Name: 'email_verified', Value: 'true' },
            { Name: 'name', Value: person.name },
          ],
        }),
      );
      try {
        await cognito.send(new AdminSetUserPasswordCommand({ UserPoolId: userPoolId, Username: person.userId, Password: password, Permanent: true }));
      } catch (error) {
        // No user without the password is left behind: its e-mail alias would refuse a re-run.
        await remove(person.userId);
        throw error;
      }
      return {};
    },
    remove,
  };
};
