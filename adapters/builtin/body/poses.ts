import type { PoseId } from '../../../core/twins/body.ts';

/** Joint angles of one side, in degrees. Positive flexion moves the limb towards the viewer. */
export interface LimbAngles {
  /** Arm or leg swung outwards in the frontal plane. */
  abduction: number;
  /** Arm or leg swung forwards (negative: backwards) in the sagittal plane. */
  flexion: number;
  /** Elbow bend (forearm forwards) or knee bend (shank backwards). */
  bend: number;
}

export interface PoseSpec {
  leftArm: LimbAngles;
  rightArm: LimbAngles;
  leftLeg: LimbAngles;
  rightLeg: LimbAngles;
  /** Toe-out of each foot in degrees (0: toes straight at the viewer). */
  leftFootYaw: number;
  rightFootYaw: number;
  /** Fractions of the image height left free above the head and below the feet. */
  marginTop: number;
  marginBottom: number;
}

const limb = (abduction: number, flexion = 0, bend = 0): LimbAngles => ({ abduction, flexion, bend });

/**
 * The five resolved poses. Left is the subject's left (image right). The arm abductions of the
 * standing poses leave a gap between arm and torso at chest height so the torso outline is visible.
 */
export const POSES: Record<PoseId, PoseSpec> = {
  // Arms hanging at the sides, feet together.
  standing_arms_down: {
    leftArm: limb(5, 0, 6), rightArm: limb(5, 0, 6),
    leftLeg: limb(2), rightLeg: limb(2),
    leftFootYaw: 8, rightFootYaw: 8,
    marginTop: 0.04, marginBottom: 0.04,
  },
  // Relaxed A-stance, feet about hip width apart.
  man_pose: {
    leftArm: limb(20, 0, 12), rightArm: limb(20, 0, 12),
    leftLeg: limb(5), rightLeg: limb(5),
    leftFootYaw: 12, rightFootYaw: 12,
    marginTop: 0.04, marginBottom: 0.04,
  },
  // Softer stance: weight on the right leg, left knee relaxed, elbows bent a little more.
  girl_pose: {
    leftArm: limb(16, 4, 22), rightArm: limb(14, 0, 14),
    leftLeg: limb(3, 6, 12), rightLeg: limb(3),
    leftFootYaw: 18, rightFootYaw: 10,
    marginTop: 0.04, marginBottom: 0.04,
  },
  // Feet apart and turned out so both shoes show their sides; extra floor below the feet.
  shoe_girl_pose: {
    leftArm: limb(16, 0, 14), rightArm: limb(16, 0, 14),
    leftLeg: limb(6, 8, 6), rightLeg: limb(6),
    leftFootYaw: 24, rightFootYaw: 32,
    marginTop: 0.03, marginBottom: 0.1,
  },
  // Mid-stride: left leg forward, right leg back with the knee bent; arms swing opposite.
  walking_pose: {
    leftArm: limb(7, -18, 10), rightArm: limb(7, 22, 18),
    leftLeg: limb(2, 20, 6), rightLeg: limb(2, -14, 24),
    leftFootYaw: 6, rightFootYaw: 6,
    marginTop: 0.04, marginBottom: 0.04,
  },
};
